#!/usr/bin/env bash
# The container image, built and run for real with podman (run by .ci/run;
# docs/OPERATIONS.md "Containers"). It:
#
# 1. installs podman, mmdebstrap and runc when they are missing (as root,
#    with apt-get), and skips with a message when it cannot;
# 2. makes local base images from Debian 13 (trixie, Node.js 20.19) with
#    mmdebstrap, cached as tarballs under $PERSONA_CONTAINER_CACHE
#    (/var/cache/persona-reply-container) for a week, since no image
#    registry may be reachable: the runtime base has nodejs, the build base
#    npm, libnode-dev, python3, make and g++ too (better-sqlite3 compiles
#    from source). The build base trusts the host's extra CA certificates
#    (/usr/local/share/ca-certificates), so npm reaches its registry through
#    the same proxy as the host;
# 3. builds Containerfile on them (npm ci needs the npm registry: host network);
# 4. checks the embedded default (SQLite on the volume, read-only root
#    filesystem): ready, /api/v1/generate 200 with the demo key, PID 1 is
#    node and not root, the HEALTHCHECK passes, SIGTERM stops it within 10 s
#    with exit code 0;
# 5. checks two containers on the host's PostgreSQL (a database of their own,
#    migrated by the one-shot command) and Redis: a fresh key (25 a minute)
#    gets exactly 25 of 60 concurrent requests through, across both.
#
# Environment: PERSONA_TEST_POSTGRES_URL (default
# postgres://postgres@127.0.0.1:5432/test: a database is created beside it
# and dropped), PERSONA_TEST_REDIS_URL (default redis://127.0.0.1:6379),
# PERSONA_DEBIAN_MIRROR, PERSONA_CONTAINER_CACHE.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() {
  echo "container test: skipped: $*"
  exit 0
}
fail() {
  echo "container test: FAILED: $*" >&2
  exit 1
}
now() { date +%s.%N; }
seconds_since() { awk -v start="$1" -v end="$(now)" 'BEGIN { printf "%.1f", end - start }'; }

# --- 1. tools ---------------------------------------------------------------
missing=()
for tool in podman mmdebstrap runc; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    skip "${missing[*]} missing, and apt-get as root is not available to install them"
  fi
  echo "== installing ${missing[*]} (apt-get)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman mmdebstrap runc >/dev/null; }; then
    skip "apt-get could not install podman, mmdebstrap and runc"
  fi
fi
if [ "$(id -u)" != 0 ]; then
  skip "mmdebstrap and podman import need root here"
fi
# podman with runc; without the errors of its healthcheck timers, which need
# systemd (a machine without it logs one per container).
podman_() { podman --runtime runc "$@" 2> >(grep -v "unable to get systemd connection" >&2); }
podman_ info >/dev/null 2>&1 || skip "podman cannot run containers on this machine ($(podman_ info 2>&1 | tail -n 1))"

# --- 2. base images ---------------------------------------------------------
CACHE="${PERSONA_CONTAINER_CACHE:-/var/cache/persona-reply-container}"
MIRROR="${PERSONA_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE=trixie
mkdir -p "$CACHE"
extra_cas=(/usr/local/share/ca-certificates/*.crt)
[ -e "${extra_cas[0]}" ] || extra_cas=()

# base_image NAME PACKAGES [trust-host-cas]: sets base_image_name to the local
# image's name, making it (and its cached tarball) when missing or older
# than a week. (Not run in a subshell, so that skip and errexit end the script.)
base_image() {
  local name="$1" packages="$2" trust="${3:-}" key tarball image started
  key="$( { echo "$SUITE $packages $trust"; [ -z "$trust" ] || cat "${extra_cas[@]}" /dev/null; } | sha256sum | cut -c1-12)"
  tarball="$CACHE/$name-$SUITE-$key.tar"
  image="localhost/persona-reply-$name-base:$SUITE-$key"
  if [ -z "$(find "$tarball" -mtime -7 2>/dev/null)" ]; then
    started="$(now)"
    local hooks=()
    if [ -n "$trust" ] && [ "${#extra_cas[@]}" -gt 0 ]; then
      hooks=(--customize-hook="cp ${extra_cas[*]} \"\$1/usr/local/share/ca-certificates/\""
        --customize-hook='chroot "$1" update-ca-certificates >/dev/null')
    fi
    rm -f "$tarball.partial.tar"
    # Debian's mirror out of reach is this machine's problem, like podman missing: skip.
    if ! mmdebstrap --quiet --variant=minbase --include="$packages" "${hooks[@]}" \
      "$SUITE" "$tarball.partial.tar" "$MIRROR" >&2; then
      rm -f "$tarball.partial.tar"
      skip "mmdebstrap could not make the $name base image from $MIRROR"
    fi
    mv "$tarball.partial.tar" "$tarball"
    podman_ rmi --force "$image" >/dev/null 2>&1 || true
    echo "base image $name: mmdebstrap $(seconds_since "$started") s" >&2
  fi
  if ! podman_ image exists "$image"; then
    started="$(now)"
    podman_ import --quiet \
      --change "ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
      --change "ENV=NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
      "$tarball" "$image" >/dev/null
    echo "base image $name: import $(seconds_since "$started") s" >&2
  fi
  base_image_name="$image"
}

echo "== base images (Debian $SUITE, mmdebstrap, cached in $CACHE)"
started="$(now)"
base_image runtime ca-certificates,nodejs
runtime_base="$base_image_name"
base_image build ca-certificates,nodejs,npm,libnode-dev,python3,make,g++ trust-host-cas
build_base="$base_image_name"
echo "base images ready in $(seconds_since "$started") s: $build_base, $runtime_base"

# --- 3. the image -----------------------------------------------------------
IMAGE=localhost/persona-reply:container-test
echo "== podman build (Containerfile)"
started="$(now)"
podman_ build --quiet --network=host --format docker \
  --build-arg BUILD_IMAGE="$build_base" --build-arg RUNTIME_IMAGE="$runtime_base" \
  -t "$IMAGE" -f Containerfile . >/dev/null
size="$(podman_ image inspect --format '{{.Size}}' "$IMAGE")"
echo "image built in $(seconds_since "$started") s: $IMAGE, $((size / 1000000)) MB"

# --- containers, volumes and the database, removed on exit --------------------
run_id="$$-$RANDOM"
containers=()
volumes=()
database=""
POSTGRES_URL="${PERSONA_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
REDIS_URL="${PERSONA_TEST_REDIS_URL:-redis://127.0.0.1:6379}"
# A statement on the host's PostgreSQL, with the repository's pg client.
postgres() {
  node --input-type=module -e '
    import pg from "pg";
    const client = new pg.Client({ connectionString: process.argv[1], connectionTimeoutMillis: 5000 });
    await client.connect();
    try { await client.query(process.argv[2]); } finally { await client.end(); }
  ' "$POSTGRES_URL" "$1"
}
cleanup() {
  local status=$?
  for container in "${containers[@]}"; do
    if [ "$status" != 0 ]; then
      echo "--- log of $container (last 30 lines)" >&2
      podman_ logs --tail 30 "$container" >&2 2>&1 || true
    fi
    podman_ rm --force --time 0 "$container" >/dev/null 2>&1 || true
  done
  for volume in "${volumes[@]}"; do podman_ volume rm --force "$volume" >/dev/null 2>&1 || true; done
  [ -z "$database" ] || postgres "drop database if exists $database with (force)" || true
}
trap cleanup EXIT

free_port() {
  node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}
# Every container: the host network, the limits podman's defaults exceed here,
# a read-only root filesystem without podman's tmpfs mounts (the image must
# write only to its volume), and no healthcheck timer (it needs systemd;
# `podman healthcheck run` checks once).
run_options=(--network=host --ulimit nofile=10000:10000 --ulimit nproc=4096:4096
  --read-only --read-only-tmpfs=false --health-interval disable)
# start NAME PORT [podman run options...]: a detached container NAME of the
# image on the host network, read-only root filesystem (no tmpfs either),
# its data volume NAME-data.
start() {
  local name="$1" port="$2"
  shift 2
  podman_ volume create "$name-data" >/dev/null
  volumes+=("$name-data")
  containers+=("$name")
  podman_ run --detach --name "$name" "${run_options[@]}" \
    --volume "$name-data:/data" \
    --env PERSONA_PORT="$port" --env PERSONA_LOG_LEVEL=warn "$@" "$IMAGE" >/dev/null
}
# wait_ready PORT: /readyz answers 200 within 60 s.
wait_ready() {
  local deadline=$((SECONDS + 60))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$1/readyz")" = 200 ]; do
    [ "$SECONDS" -lt "$deadline" ] || fail "/readyz on port $1 did not answer 200 within 60 s"
    sleep 0.5
  done
}
generate() { # generate PORT KEY PERSONA: prints the status code
  curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$1/api/v1/generate" \
    -H 'content-type: application/json' -H "x-api-key: $2" \
    -d "{\"personaId\":\"$3\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello from a container!\"}]}"
}
env_value() { # env_value CONTAINER NAME: a value of the demo seed's env file
  podman_ exec "$1" sed -n "s/^$2=//p" /data/service.env
}

tests_started="$(now)"
passed=0
ok() {
  passed=$((passed + 1))
  echo "ok: $*"
}

# --- 4. the embedded default ------------------------------------------------
echo "== the embedded default: SQLite on the volume, read-only root filesystem"
port="$(free_port)"
single="persona-single-$run_id"
start "$single" "$port"
wait_ready "$port"
ok "/readyz 200 (SQLite on the data volume, nothing else written)"
key="$(env_value "$single" SERVICE_API_KEY)"
persona="$(env_value "$single" SERVICE_PERSONA_ID)"
[ -n "$key" ] && [ -n "$persona" ] || fail "the demo seed wrote no key to /data/service.env"
[ "$(generate "$port" "$key" "$persona")" = 200 ] || fail "/api/v1/generate with the demo key did not answer 200"
ok "/api/v1/generate 200 with the demo key"
[ "$(podman_ exec "$single" cat /proc/1/comm)" = node ] || fail "PID 1 is not node"
uid="$(podman_ exec "$single" sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' /proc/1/status)"
[ "$uid" != 0 ] || fail "the service runs as root"
ok "PID 1 is node, running as uid $uid"
podman_ healthcheck run "$single" >/dev/null || fail "the image's HEALTHCHECK failed"
ok "HEALTHCHECK passes"
stop_started="$(now)"
podman_ kill --signal TERM "$single" >/dev/null
code="$(timeout 10 podman --runtime runc wait "$single")" || fail "SIGTERM did not stop the container within 10 s"
[ "$code" = 0 ] || fail "the service exited with $code after SIGTERM"
ok "SIGTERM: exited 0 after $(seconds_since "$stop_started") s"

# --- 5. two instances on PostgreSQL and Redis ---------------------------------
echo "== two containers on the host's PostgreSQL and Redis"
database="persona_container_$(date +%s)_$RANDOM"
postgres "create database $database" || fail "cannot create a database on $POSTGRES_URL"
database_url="$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.href)' "$POSTGRES_URL" "$database")"
shared=(--env PERSONA_DATABASE_URL="$database_url" --env PERSONA_REDIS_URL="$REDIS_URL")
# The migration step: one-shot, same image, before any instance.
podman_ run --rm "${run_options[@]}" "${shared[@]}" "$IMAGE" \
  persona-admin migrate || fail "the migration one-shot failed"
ok "migration one-shot (persona-admin) exited 0"
port_a="$(free_port)"
port_b="$(free_port)"
instance_a="persona-a-$run_id"
start "$instance_a" "$port_a" "${shared[@]}" --env PERSONA_INSTANCE_ID=a
wait_ready "$port_a"
instance_b="persona-b-$run_id"
start "$instance_b" "$port_b" "${shared[@]}" --env PERSONA_INSTANCE_ID=b --env PERSONA_SEED_DEMO=false
wait_ready "$port_b"
persona="$(env_value "$instance_a" SERVICE_PERSONA_ID)"
account="$(podman_ exec "$instance_a" persona-admin account list |
  node -e 'let t = ""; process.stdin.on("data", (d) => (t += d)).on("end", () => console.log(JSON.parse(t).find((a) => a.name === "Demo account").id))')"
# A fresh key of the demo account has the default limits: 25 a minute.
fresh_key="$(podman_ exec "$instance_a" persona-admin key create --account "$account" --name container-test 2>/dev/null)"
[ -n "$fresh_key" ] || fail "persona-admin key create printed no key"
# Alternately to each instance; curl's -o is per URL.
transfers=()
for index in $(seq 1 60); do
  transfers+=(-o /dev/null "http://127.0.0.1:$([ $((index % 2)) = 0 ] && echo "$port_a" || echo "$port_b")/api/v1/generate")
done
statuses="$(curl --silent --no-progress-meter --parallel --parallel-immediate --parallel-max 60 --max-time 30 \
  -H 'content-type: application/json' -H "x-api-key: $fresh_key" \
  -d "{\"personaId\":\"$persona\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}]}" \
  -w '%{http_code}\n' "${transfers[@]}" | sort | uniq -c | awk '{ printf "%s×%s ", $1, $2 }')"
[ "$statuses" = "25×200 35×429 " ] || fail "60 concurrent requests of a fresh key across both: $statuses(expected 25×200 35×429)"
ok "60 concurrent requests of a fresh key across both instances: $statuses"

# The example app of compose.yaml, from the same image: the demo key read
# from instance a's volume, the service at instance a.
port_e="$(free_port)"
example="persona-example-$run_id"
containers+=("$example")
podman_ run --detach --name "$example" "${run_options[@]}" \
  --volume "$instance_a-data:/demo:ro" \
  --env SERVICE_BASE_URL="http://127.0.0.1:$port_a" --env EXAMPLE_PORT="$port_e" \
  "$IMAGE" sh /app/deploy/container/example-app.sh >/dev/null
deadline=$((SECONDS + 60))
until podman_ exec "$example" node /app/deploy/container/healthcheck.mjs "http://127.0.0.1:$port_e/" 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the example app did not answer within 60 s"
  sleep 0.5
done
status="$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port_e/api/quickstart" \
  -H 'content-type: application/json' -d '{"prompt":"Hello from the example app!"}')"
[ "$status" = 200 ] || fail "the example app's /api/quickstart answered $status"
ok "the example app (deploy/container/example-app.sh): /api/quickstart 200 through instance a"

echo "container test: $passed passed, 0 failed (checks $(seconds_since "$tests_started") s; image $((size / 1000000)) MB)"
