// npm run bench:tracing (api; also part of npm run bench): what OpenTelemetry
// tracing costs on the request path. Two services built from
// api/dist on their own SQLite files, each with a persona routed to an
// instant OpenAI-compatible upstream (mock-upstream.mjs): one with tracing
// off (no OTEL_* set: the SDK is never loaded), one with tracing on, every
// request sampled (OTEL_TRACES_SAMPLER=always_on) and exported over
// OTLP/HTTP to a local sink (otlp-sink.mjs) — five spans a request: server,
// admission, route attempt, chat client span, settlement. Measured
// interleaved, as in generate-bench.mjs: throughput (median of
// BENCH_ROUNDS rounds), latency at a fixed 200 requests/s, and the main
// thread's CPU time per request; reported as on ÷ off. Results go to
// docs/BENCHMARKS.md (section "tracing").

import path from "node:path";
import autocannon from "autocannon";
import { machineLine, writeSection } from "../../bench/results-file.mjs";
import {
  cleanUp,
  connections,
  directory,
  duration,
  fixedRate,
  generateBody,
  load,
  median,
  onboard,
  root,
  rounds,
  startReference,
  startService,
  threadCpu,
} from "./bench-support.mjs";

async function main() {
  const upstream = await startReference("mock-upstream.mjs");
  const sink = await startReference("otlp-sink.mjs");
  const routed = [{ upstream: "openai-compatible", model: "bench-model" }];
  const upstreamEnvironment = {
    PERSONA_OPENAI_BASE_URL: `${upstream.url}/v1`,
    PERSONA_OPENAI_API_KEY: "bench",
    PERSONA_PROVIDER_MAX_RETRIES: "0",
  };
  const tracingEnvironment = {
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_TRACES_SAMPLER: "always_on",
    OTEL_SERVICE_NAME: "persona-reply-bench",
  };
  const services = {};
  const targets = [];
  for (const [key, name, environment] of [
    ["off", "/generate → mock upstream, tracing off", upstreamEnvironment],
    [
      "on",
      "/generate → mock upstream, tracing on (100 % sampled, OTLP/HTTP)",
      { ...upstreamEnvironment, ...tracingEnvironment },
    ],
  ]) {
    const file = path.join(directory, `tracing-${key}.sqlite`);
    const customer = onboard(file, routed, upstreamEnvironment);
    services[key] = await startService(file, environment);
    targets.push({
      key,
      name,
      urls: [`${services[key].url}/api/v1/generate`],
      body: generateBody(customer.personaId),
      headers: { "x-api-key": customer.apiKey },
    });
  }

  for (const target of targets) await load(target, 2); // warm-up: JIT, caches, pools
  const runs = new Map(targets.map((target) => [target.key, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const target of targets) {
      runs.get(target.key).push(await load(target, duration));
      process.stderr.write(".");
    }
  }
  const throughput = Object.fromEntries(
    [...runs].map(([key, list]) => [key, median(list.map((run) => run.rps))]),
  );
  const fixed = {};
  for (const target of targets) fixed[target.key] = await load(target, duration, fixedRate);
  const cpu = {};
  for (const target of targets) {
    const pid = services[target.key].child.pid;
    const before = threadCpu(pid).get(pid);
    const run = await autocannon({
      url: target.urls[0],
      method: "POST",
      headers: { "content-type": "application/json", ...target.headers },
      body: target.body,
      connections,
      amount: 5_000,
    });
    cpu[target.key] = ((threadCpu(pid).get(pid) - before) * 1000) / run.requests.total;
  }

  const lines = [
    "## Tracing: the request path with OpenTelemetry off and on",
    "",
    `- Machine: ${machineLine()}`,
    `- Command: \`npm run bench:tracing -w api\` (autocannon, ${connections} connections, ${rounds} interleaved rounds of ${duration} s after a 2 s warm-up; the median round; the fixed-rate runs at ${fixedRate} requests/s for ${duration} s; CPU over 5 000 requests)`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
    "- Both: /generate on SQLite through an instant OpenAI-compatible upstream, billing and rate limits on, request logging on. On: every request sampled (`OTEL_TRACES_SAMPLER=always_on`), five spans a request batched to a local OTLP/HTTP (JSON) receiver.",
    "",
    "| tracing | requests/s | p50 ms at 200/s | p99 ms at 200/s | main-thread CPU µs/request |",
    "|---|---:|---:|---:|---:|",
    ...targets.map(
      (target) =>
        `| ${target.key} | ${throughput[target.key].toFixed(0)} | ${fixed[target.key].p50} | ${fixed[target.key].p99} | ${cpu[target.key].toFixed(0)} |`,
    ),
    "",
    `On ÷ off: throughput ${(throughput.on / throughput.off).toFixed(2)}, main-thread CPU per request ${(cpu.on / cpu.off).toFixed(2)}.`,
  ];
  const section = lines.join("\n");
  writeSection(path.join(root, "docs/BENCHMARKS.md"), "tracing", section);
  process.stdout.write(`\n${section}\n`);
}

try {
  await main();
} finally {
  cleanUp();
}
