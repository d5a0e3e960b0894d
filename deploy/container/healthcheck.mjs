#!/usr/bin/env node
// The image's HEALTHCHECK (Containerfile): GET the URL given as the first
// argument, by default the service's readiness endpoint on
// 127.0.0.1:$PERSONA_PORT/readyz. Exits 0 on a 2xx answer, 1 on anything
// else, on a connection error and after 4 s without an answer.
const port = process.env.PERSONA_PORT ?? "8787";
const url = process.argv[2] ?? `http://127.0.0.1:${port}/readyz`;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4_000) });
  await response.arrayBuffer();
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  process.stderr.write(
    `healthcheck: ${url}: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
