#!/bin/sh
# The example app in the service's image (compose.yaml; scripts/container-test.sh):
# SERVICE_API_KEY and SERVICE_PERSONA_ID from the env file the service's demo
# seed wrote (DEMO_ENV_FILE, default /demo/service.env: the service's data
# volume, mounted read-only; waited for up to 60 s), SERVICE_BASE_URL from the
# environment (the proxy's address) or else that file. Then node replaces
# this shell as PID 1.
set -eu
file="${DEMO_ENV_FILE:-/demo/service.env}"
waited=0
until [ -s "$file" ]; do
  if [ "$waited" -ge 60 ]; then
    echo "example-app: $file did not appear within 60 s (is the service seeding the demo account?)" >&2
    exit 1
  fi
  sleep 1
  waited=$((waited + 1))
done
value() { sed -n "s/^$1=//p" "$file" | tail -n 1; }
SERVICE_API_KEY="$(value SERVICE_API_KEY)"
SERVICE_PERSONA_ID="$(value SERVICE_PERSONA_ID)"
SERVICE_BASE_URL="${SERVICE_BASE_URL:-$(value SERVICE_BASE_URL)}"
export SERVICE_API_KEY SERVICE_PERSONA_ID SERVICE_BASE_URL
exec node /app/example-app/dist/server/main.js
