// npm run bench (api): how fast the request path is next to the framework under
// it and the gateway users compare it with, measured in one run,
// interleaved, on the same machine, as ratios:
//
// - references: a bare node:http JSON handler, a minimal express 5 JSON route,
//   an instant OpenAI-compatible upstream (mock-upstream.mjs), and Portkey's
//   open-source gateway (@portkey-ai/gateway) in front of that upstream;
// - POST /api/v1/generate with billing and rate limits on: the offline engine
//   on SQLite, on PostgreSQL with one instance and with two instances on one
//   database (the connections split between them), and a persona routed to the
//   mock upstream (openai-compatible provider) on SQLite.
//
// Each round measures every target for BENCH_DURATION_SECONDS after a warm-up;
// BENCH_ROUNDS rounds alternate the targets, and the median round is kept. At a
// fixed 200 requests/s it also measures latency above the express route (the
// overhead a user pays), and the CPU time per request of the service's threads
// (main thread, SQLite storage workers). Results go to docs/BENCHMARKS.md.
//
// The overhead at 200 requests/s has its own section,
// "generate-overhead": BENCH_OVERHEAD_ROUNDS (5) interleaved rounds of
// BENCH_OVERHEAD_SECONDS (10) per target with an open-loop paced client
// (sub-millisecond times), and autocannon's `overallRate` for comparison with
// earlier figures. `node api/bench/generate-bench.mjs --only overhead` runs
// that part alone (the express route and /generate on SQLite, nothing else).
//
// Online evaluation's cost has the section "generate-sampling": /generate on
// SQLite for a persona sampled at 100 % (`persona sample --percent 100`, the
// demo suite's reference-free checks, no judge) and for one not sampled, on
// one service, BENCH_OVERHEAD_ROUNDS interleaved rounds of the paced client at
// 200 requests/s; the difference of the median rounds' p50 must stay under
// 0.5 ms. `node api/bench/generate-bench.mjs --only sampling` runs it alone.
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { machineLine, writeSection } from "../../bench/results-file.mjs";
import {
  admin,
  cleanUp,
  connections,
  directory,
  duration,
  fixedRate,
  generateBody,
  histogramBetween,
  load,
  median,
  metricValue,
  onboard,
  pacedLoad,
  root,
  rounds,
  scrapeMetrics,
  startProcess,
  startReference,
  startService,
  threadCpu,
  withPostgres,
} from "./bench-support.mjs";

const onlyIndex = process.argv.indexOf("--only");
const only = onlyIndex === -1 ? undefined : process.argv[onlyIndex + 1];
if (only !== undefined && only !== "overhead" && only !== "sampling") {
  throw new Error(`--only takes "overhead" or "sampling" (got ${only})`);
}
const overheadRounds = Number(process.env.BENCH_OVERHEAD_ROUNDS ?? 5);
const overheadSeconds = Number(process.env.BENCH_OVERHEAD_SECONDS ?? 10);
/** The targets for the overhead at 200 requests/s on SQLite, in ms above express. */
const OVERHEAD_TARGET = { p50: 2, p99: 10 };

/**
 * Latency of /generate on SQLite above the express route at a fixed rate,
 * the two measured in alternating order round after round; the overhead of
 * each round is its /generate percentile minus its express percentile, and
 * the median round is reported. Writes the "generate-overhead" section.
 *
 * @returns the median overheads in ms (paced client) for the main section
 */
async function measureOverhead(expressTarget, sqliteTarget) {
  await pacedLoad(expressTarget, 2, fixedRate); // warm-up
  await pacedLoad(sqliteTarget, 2, fixedRate);
  const rows = [];
  for (let round = 0; round < overheadRounds; round += 1) {
    const order = round % 2 === 0 ? ["express", "sqlite"] : ["sqlite", "express"];
    const paced = {};
    const cannon = {};
    let service;
    for (const key of order) {
      const target = key === "express" ? expressTarget : sqliteTarget;
      // The service's own view of the paced run: its storage writes and its event loop.
      const before = key === "sqlite" ? await scrapeMetrics(target.urls[0]) : undefined;
      paced[key] = await pacedLoad(target, overheadSeconds, fixedRate);
      if (before !== undefined) service = serviceView(before, await scrapeMetrics(target.urls[0]));
      cannon[key] = await load(target, duration, fixedRate);
      process.stderr.write(".");
    }
    rows.push({ paced, cannon, service });
  }
  const over = (pick, percentile) =>
    median(rows.map((row) => pick(row).sqlite[percentile] - pick(row).express[percentile]));
  const of = (pick, key, percentile) => median(rows.map((row) => pick(row)[key][percentile]));
  const overhead = {
    p50: over((row) => row.paced, "p50"),
    p90: over((row) => row.paced, "p90"),
    p99: over((row) => row.paced, "p99"),
  };
  const ms = (value) => value.toFixed(2);
  const verdict = (value, target) =>
    value < target
      ? `met (${ms(value)} < ${target})`
      : `**missed** by ${ms(value - target)} ms (${ms(value)} ≥ ${target})`;
  const lines = [
    `## /api/v1/generate on SQLite: overhead above the express route at ${fixedRate} requests/s`,
    "",
    `- Machine: ${machineLine()}; load average ${os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(" / ")} at the end (a shared machine)`,
    `- Command: \`node api/bench/generate-bench.mjs --only overhead\` (also part of \`npm run bench\`): ${overheadRounds} rounds, the express route and /generate (offline engine, billing and rate limits on, request logging on, every 200 fsynced) alternating; per round and target an open-loop paced client at ${fixedRate} requests/s for ${overheadSeconds} s (keep-alive sockets, each request timed from its send to its last byte), then autocannon at \`overallRate: ${fixedRate}\`, ${connections} connections, ${duration} s (whole milliseconds, as the earlier figures); the overhead of a round is its /generate percentile minus its express percentile; the median round`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
    "",
    "| client | express p50 / p90 / p99 ms | /generate p50 / p90 / p99 ms | overhead p50 / p90 / p99 ms |",
    "|---|---:|---:|---:|",
    `| paced (open loop) | ${ms(of((row) => row.paced, "express", "p50"))} / ${ms(of((row) => row.paced, "express", "p90"))} / ${ms(of((row) => row.paced, "express", "p99"))} | ${ms(of((row) => row.paced, "sqlite", "p50"))} / ${ms(of((row) => row.paced, "sqlite", "p90"))} / ${ms(of((row) => row.paced, "sqlite", "p99"))} | ${ms(overhead.p50)} / ${ms(overhead.p90)} / ${ms(overhead.p99)} |`,
    `| autocannon \`overallRate\` | ${of((row) => row.cannon, "express", "p50")} / – / ${of((row) => row.cannon, "express", "p99")} | ${of((row) => row.cannon, "sqlite", "p50")} / – / ${of((row) => row.cannon, "sqlite", "p99")} | ${over((row) => row.cannon, "p50")} / – / ${over((row) => row.cannon, "p99")} |`,
    "",
    `Per round (paced, overhead p50 / p99 ms): ${rows.map((row) => `${ms(row.paced.sqlite.p50 - row.paced.express.p50)} / ${ms(row.paced.sqlite.p99 - row.paced.express.p99)}`).join("; ")}.`,
    "",
    'Where the time went, per round, from the service\'s own `/metrics` scraped before and after its paced run (histogram buckets, so upper bounds): its settlements (`persona_storage_write_duration_seconds{operation="settle"}`: group-commit queue, commit, fsync) p99 / slowest, its admissions p99, and the longest its event loop was held past its 10 ms sampling tick (`nodejs_eventloop_lag_max_seconds` minus the tick; an idle service shows 0.1–1 ms, now and then ~16 on this shared machine):',
    "",
    "| round | overhead p99 ms | settle p99 / slowest ≤ ms | admit p99 ≤ ms | event loop held, max ms |",
    "|---:|---:|---:|---:|---:|",
    ...rows.map(
      (row, index) =>
        `| ${index + 1} | ${ms(row.paced.sqlite.p99 - row.paced.express.p99)} | ${row.service.settleP99} / ${row.service.settleMax} | ${row.service.admitP99} | ${ms(row.service.loopMaxMs)} |`,
    ),
    "",
    "Targets (paced client):",
    "",
    `- p50 < ${OVERHEAD_TARGET.p50} ms above express: ${verdict(overhead.p50, OVERHEAD_TARGET.p50)}`,
    `- p99 < ${OVERHEAD_TARGET.p99} ms above express: ${verdict(overhead.p99, OVERHEAD_TARGET.p99)}`,
  ];
  const section = lines.join("\n");
  writeSection(path.join(root, "docs/BENCHMARKS.md"), "generate-overhead", section);
  process.stdout.write(`\n${section}\n`);
  return overhead;
}

/** prom-client's event-loop sampling tick (`eventLoopMonitoringPrecision`, its default), in ms. */
const LOOP_TICK_MS = 10;

/**
 * The service's own figures for one paced run, from two scrapes of its
 * `/metrics`: bucket bounds in ms of its settlements' p99 and slowest, its
 * admissions' p99, and its event loop's longest delay past the sampling
 * tick (prom-client resets that gauge's histogram at every scrape, so the
 * second scrape covers the run).
 */
function serviceView(before, after) {
  const name = "persona_storage_write_duration_seconds";
  const settle = histogramBetween(before, after, name, { operation: "settle", outcome: "ok" });
  const admit = histogramBetween(before, after, name, { operation: "admit", outcome: "ok" });
  return {
    settleP99: settle.bound(0.99),
    settleMax: settle.bound(1),
    admitP99: admit.bound(0.99),
    loopMaxMs: metricValue(after, "nodejs_eventloop_lag_max_seconds") * 1000 - LOOP_TICK_MS,
  };
}

/**
 * CPU time of scoring one sampled answer in-process (the demo persona, the
 * demo suite's reference-free checks plus the avoid-topic refusal, a
 * 60-word answer), timed with `process.cpuUsage` over many answers: what
 * sampling adds to the service's main thread per answer, whatever else the
 * machine does.
 *
 * @returns microseconds of CPU per scored answer
 */
async function scoringCpuMicros() {
  const { runOnlineChecks } = await import(
    path.join(root, "api/dist/online-evaluation/online-checks.js")
  );
  const { readExamplePersona } = await import(path.join(root, "api/dist/seed/demo-seed.js"));
  const example = readExamplePersona();
  const persona = { ...example, id: "bench", accountId: "bench", version: 1, createdAt: "" };
  const settings = {
    checks: [{ type: "no-artefacts" }, { type: "length", unit: "words", min: 3, max: 120 }],
    refusalMarkers: [],
    suite: null,
    judge: null,
    keepContentDays: null,
  };
  const task = {
    task: "reply",
    messages: [
      { role: "user", content: "Hi! Which herbs grow well on a balcony, and is politics fun?" },
    ],
    candidates: 1,
  };
  const answer = Array.from({ length: 12 }, () => "Basil and mint love a sunny balcony.").join(" ");
  const answers = 20_000;
  for (let index = 0; index < 2_000; index += 1) runOnlineChecks(persona, settings, task, answer);
  const before = process.cpuUsage();
  for (let index = 0; index < answers; index += 1) runOnlineChecks(persona, settings, task, answer);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / answers;
}

/** The most sampling at 100 % may add to /generate's p50 at 200 requests/s, in ms. */
const SAMPLING_TARGET_P50_MS = 0.5;

/**
 * /generate on SQLite with sampling at 100 % against the same without, on
 * one service (two personas of one account, one sampled), in alternating
 * order round after round with the paced client at the fixed rate. Writes
 * the "generate-sampling" section.
 */
async function measureSampling(service, sqliteFile, customer) {
  const sampledPersona = onboard(sqliteFile, [
    { upstream: "offline", model: "offline-composer-1" },
  ]);
  admin(sqliteFile, {}, "persona", "sample", sampledPersona.personaId, "--percent", "100");
  // Every instance applies a sampling change within about a second.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const targets = {
    off: {
      name: "sampling off",
      urls: [`${service.url}/api/v1/generate`],
      body: generateBody(customer.personaId),
      headers: { "x-api-key": customer.apiKey },
    },
    on: {
      name: "sampling 100 %",
      urls: [`${service.url}/api/v1/generate`],
      body: generateBody(sampledPersona.personaId),
      headers: { "x-api-key": sampledPersona.apiKey },
    },
  };
  await pacedLoad(targets.off, 2, fixedRate); // warm-up
  await pacedLoad(targets.on, 2, fixedRate);
  const rows = [];
  let resets = 0;
  for (let round = 0; round < overheadRounds; round += 1) {
    const order = round % 2 === 0 ? ["off", "on"] : ["on", "off"];
    const row = {};
    try {
      for (const key of order) {
        const before = threadCpu(service.child.pid).get(service.child.pid);
        row[key] = await pacedLoad(targets[key], overheadSeconds, fixedRate);
        const after = threadCpu(service.child.pid).get(service.child.pid);
        // The service's main thread: the request path and, when on, the scoring.
        row[key].cpuMs = (after - before) / (overheadSeconds * fixedRate);
        process.stderr.write(".");
      }
    } catch (error) {
      // A kept-alive socket the service closed as the client reused it (its
      // keep-alive timeout) fails a request with ECONNRESET: the round is run
      // again, at most twice over the run; any other failure ends the run.
      if (!/failed requests \(\d+ × ECONNRESET\)$/u.test(error.message) || resets >= 2) throw error;
      resets += 1;
      round -= 1;
      continue;
    }
    rows.push(row);
  }
  const of = (key, percentile) => median(rows.map((row) => row[key][percentile]));
  const added = (percentile) => median(rows.map((row) => row.on[percentile] - row.off[percentile]));
  const scored = admin(
    sqliteFile,
    {},
    "persona",
    "eval-runs",
    sampledPersona.personaId,
    "--live",
    "--json",
  );
  const samples = JSON.parse(scored).reduce((sum, line) => sum + line.samples, 0);
  const ms = (value) => value.toFixed(2);
  const p50 = added("p50");
  const cpu = (key) => median(rows.map((row) => row[key].cpuMs));
  const [load] = os.loadavg();
  const cores = os.cpus().length;
  const scoringMicros = await scoringCpuMicros();
  // On a machine busier than its cores, queueing for a core swamps a sub-millisecond difference.
  const saturated = load > cores;
  const lines = [
    `## /api/v1/generate on SQLite: online evaluation at 100 % against none, at ${fixedRate} requests/s`,
    "",
    `- Machine: ${machineLine()}; load average ${os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(" / ")} at the end (a shared machine)`,
    `- Command: \`node api/bench/generate-bench.mjs --only sampling\` (also part of \`npm run bench\`): one service, two personas of one account on the offline engine (billing and rate limits on), one with \`persona sample --percent 100\` (the demo suite's reference-free checks, no judge), the other without; ${overheadRounds} rounds alternating which goes first, per round and persona an open-loop paced client at ${fixedRate} requests/s for ${overheadSeconds} s; the difference of a round is its sampled percentile minus its unsampled one; the median round`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
    "",
    "| persona | p50 / p90 / p99 ms | main-thread CPU per request, ms |",
    "|---|---:|---:|",
    `| sampling off | ${ms(of("off", "p50"))} / ${ms(of("off", "p90"))} / ${ms(of("off", "p99"))} | ${cpu("off").toFixed(3)} |`,
    `| sampling 100 % | ${ms(of("on", "p50"))} / ${ms(of("on", "p90"))} / ${ms(of("on", "p99"))} | ${cpu("on").toFixed(3)} |`,
    `| added by sampling | ${ms(p50)} / ${ms(added("p90"))} / ${ms(added("p99"))} | ${(cpu("on") - cpu("off")).toFixed(3)} |`,
    "",
    `Per round (added p50 / p99 ms): ${rows.map((row) => `${ms(row.on.p50 - row.off.p50)} / ${ms(row.on.p99 - row.off.p99)}`).join("; ")}. Answers scored over the run: ${samples}. Rounds run again after a connection reset: ${resets}.`,
    "",
    "The CPU column is the service's main thread's CPU time over the paced run divided by its requests (`/proc`, 10 ms ticks): with sampling on it includes the scoring itself, which runs on that thread after each answer is written.",
    "",
    `Scoring one answer in-process (the demo suite's reference-free checks and the avoid-topic refusal on a 60-word answer, \`process.cpuUsage\` over 20 000 answers): ${scoringMicros.toFixed(1)} µs of CPU — at ${fixedRate} answers/s sampled, ${((scoringMicros * fixedRate) / 1000).toFixed(1)} ms of main-thread time per second, run after each answer is written, never inside a request.`,
    "",
    `Target: p50 moved by less than ${SAMPLING_TARGET_P50_MS} ms: ${
      saturated
        ? `**not judged**: the machine was saturated (load average ${load.toFixed(1)} on ${cores} cores), so these latencies measure the queue for a core, not the service; the added CPU time per request (${(cpu("on") - cpu("off")).toFixed(3)} ms) is what sampling costs; run it again on a quiet machine`
        : Math.abs(p50) < SAMPLING_TARGET_P50_MS
          ? `met (${ms(p50)})`
          : `**missed** (${ms(p50)} ms)`
    }`,
  ];
  const section = lines.join("\n");
  writeSection(path.join(root, "docs/BENCHMARKS.md"), "generate-sampling", section);
  process.stdout.write(`\n${section}\n`);
}

/** `--only sampling`: /generate on SQLite with and without online evaluation, nothing else. */
async function samplingOnly() {
  const sqliteFile = path.join(directory, "bench.sqlite");
  const customer = onboard(sqliteFile, [{ upstream: "offline", model: "offline-composer-1" }]);
  const service = await startService(sqliteFile);
  await measureSampling(service, sqliteFile, customer);
}

/** `--only overhead`: the express route and /generate on SQLite, nothing else. */
async function overheadOnly() {
  const express = await startReference("express-server.mjs");
  const sqliteFile = path.join(directory, "bench.sqlite");
  const customer = onboard(sqliteFile, [{ upstream: "offline", model: "offline-composer-1" }]);
  const service = await startService(sqliteFile);
  const body = generateBody(customer.personaId);
  await measureOverhead(
    { name: "express 5 JSON route", urls: [`${express.url}/api/v1/generate`], body, headers: {} },
    {
      name: "/generate, SQLite (offline engine)",
      urls: [`${service.url}/api/v1/generate`],
      body,
      headers: { "x-api-key": customer.apiKey },
    },
  );
}

async function main(postgresUrl, postgresSkipped) {
  const bare = await startReference("bare-server.mjs");
  const express = await startReference("express-server.mjs");
  const upstream = await startReference("mock-upstream.mjs");
  const require = createRequire(import.meta.url);
  const portkeyScript = require.resolve("@portkey-ai/gateway/build/start-server.js");
  const portkeyPort = 20_000 + Math.floor(Math.random() * 20_000);
  await startProcess(
    [portkeyScript, `--port=${portkeyPort}`, "--headless"],
    { env: { ...process.env, NODE_ENV: "production" } },
    /(Ready for connections)/u,
  );

  const sqliteFile = path.join(directory, "bench.sqlite");
  const offline = [{ upstream: "offline", model: "offline-composer-1" }];
  const routed = [{ upstream: "openai-compatible", model: "bench-model" }];
  // The first configuration format's one OpenAI-compatible upstream, named "openai-compatible".
  const upstreamEnvironment = {
    PERSONA_OPENAI_BASE_URL: `${upstream.url}/v1`,
    PERSONA_OPENAI_API_KEY: "bench",
    PERSONA_PROVIDER_MAX_RETRIES: "0",
  };
  const sqliteCustomer = onboard(sqliteFile, offline);
  const upstreamCustomer = onboard(sqliteFile, routed, upstreamEnvironment);
  const sqliteService = await startService(sqliteFile, upstreamEnvironment);
  const chat = JSON.stringify({
    model: "bench-model",
    messages: [{ role: "user", content: "Hi! Which herbs grow well on a balcony?" }],
  });
  const targets = [
    { name: "bare node:http JSON handler", urls: [bare.url], body: chat, headers: {} },
    {
      name: "express 5 JSON route",
      urls: [`${express.url}/api/v1/generate`],
      body: generateBody(sqliteCustomer.personaId),
      headers: {},
    },
    {
      name: "/generate, SQLite (offline engine)",
      key: "sqlite",
      urls: [`${sqliteService.url}/api/v1/generate`],
      body: generateBody(sqliteCustomer.personaId),
      headers: { "x-api-key": sqliteCustomer.apiKey },
    },
    {
      name: "mock upstream, direct",
      urls: [`${upstream.url}/v1/chat/completions`],
      body: chat,
      headers: {},
    },
    {
      name: "Portkey gateway → mock upstream",
      key: "portkey",
      urls: [`http://127.0.0.1:${portkeyPort}/v1/chat/completions`],
      body: chat,
      headers: {
        "x-portkey-provider": "openai",
        "x-portkey-custom-host": `${upstream.url}/v1`,
        authorization: "Bearer bench",
      },
    },
    {
      name: "/generate, SQLite → mock upstream",
      key: "upstream",
      urls: [`${sqliteService.url}/api/v1/generate`],
      body: generateBody(upstreamCustomer.personaId),
      headers: { "x-api-key": upstreamCustomer.apiKey },
    },
  ];
  if (postgresUrl !== undefined) {
    const postgresCustomer = onboard(postgresUrl, offline);
    const first = await startService(postgresUrl, { PERSONA_INSTANCE_ID: "bench-a" });
    const second = await startService(postgresUrl, { PERSONA_INSTANCE_ID: "bench-b" });
    const body = generateBody(postgresCustomer.personaId);
    const headers = { "x-api-key": postgresCustomer.apiKey };
    targets.push(
      {
        name: "/generate, PostgreSQL, 1 instance",
        key: "postgres1",
        urls: [`${first.url}/api/v1/generate`],
        body,
        headers,
      },
      {
        name: "/generate, PostgreSQL, 2 instances",
        key: "postgres2",
        urls: [`${first.url}/api/v1/generate`, `${second.url}/api/v1/generate`],
        body,
        headers,
      },
    );
  }

  for (const target of targets) await load(target, 2); // warm-up: JIT, caches, pools
  const figures = new Map(targets.map((target) => [target.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const target of targets) {
      figures.get(target.name).push(await load(target, duration));
      process.stderr.write(".");
    }
  }
  const result = new Map(
    [...figures].map(([name, runs]) => [
      name,
      {
        rps: median(runs.map((run) => run.rps)),
        p50: median(runs.map((run) => run.p50)),
        p99: median(runs.map((run) => run.p99)),
      },
    ]),
  );

  // The service's CPU per request by thread, during a run of a target.
  const cpuOf = async (key) => {
    const target = targets.find((entry) => entry.key === key);
    const pid = sqliteService.child.pid;
    const before = threadCpu(pid);
    const run = await autocannon({
      url: target.urls[0],
      method: "POST",
      headers: { "content-type": "application/json", ...target.headers },
      body: target.body,
      connections,
      amount: 5_000,
    });
    const after = threadCpu(pid);
    const requests = run.requests.total;
    const usOf = (thread, ms) => ((ms - (before.get(thread) ?? 0)) * 1000) / requests;
    let others = 0;
    for (const [thread, ms] of after) if (thread !== pid) others += usOf(thread, ms);
    return { main: usOf(pid, after.get(pid)), others };
  };
  const sqliteTarget = targets.find((target) => target.key === "sqlite");
  const cpu = { sqlite: await cpuOf("sqlite"), upstream: await cpuOf("upstream") };
  const expressTarget = targets[1];
  const expressPid = express.child.pid;
  const expressBefore = threadCpu(expressPid).get(expressPid);
  await autocannon({
    url: expressTarget.urls[0],
    method: "POST",
    headers: { "content-type": "application/json" },
    body: expressTarget.body,
    connections,
    amount: 5_000,
  });
  const expressCpu = ((threadCpu(expressPid).get(expressPid) - expressBefore) * 1000) / 5_000;

  // Latency above the express route at a fixed rate (what a user pays).
  const overhead = await measureOverhead(expressTarget, sqliteTarget);
  // Online evaluation's cost on the same service.
  await measureSampling(sqliteService, sqliteFile, sqliteCustomer);

  // The ledger after it all: sums to the balance, nothing reserved.
  const account = JSON.parse(admin(sqliteFile, {}, "account", "show", sqliteCustomer.accountId));
  const ledgerOk =
    account.ledgerSumMicros === account.balanceMicros && account.reservedMicros === 0;

  const expressRps = result.get("express 5 JSON route").rps;
  const get = (name) => result.get(name);
  const ratio = (name, reference = expressRps) => get(name).rps / reference;
  const verdict = (value, target) =>
    value >= target
      ? `met (${value.toFixed(2)} ≥ ${target})`
      : `**missed**: ${value.toFixed(2)} < ${target} (${((1 - value / target) * 100).toFixed(0)} % short)`;
  const row = (name) => {
    const { rps, p50, p99 } = get(name);
    return `| ${name} | ${rps.toFixed(0)} | ${p50} | ${p99} | ${(rps / expressRps).toFixed(2)} |`;
  };
  const lines = [
    "## /api/v1/generate next to the framework under it and a peer gateway",
    "",
    `- Machine: ${machineLine()}`,
    `- Command: \`npm run bench\` (autocannon, ${connections} connections, ${rounds} interleaved rounds of ${duration} s after a 2 s warm-up per target; the median round; every server in its own process; request logging on)`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
    "- Every /generate request authenticates its key, counts its rate-limit windows and holds its reservation (one storage call), runs the engine, and settles durably (usage row, ledger entry, balance, group-committed; on SQLite the write-ahead log is fsynced before the answer) before answering.",
    "",
    "| target | requests/s | p50 ms | p99 ms | ÷ express |",
    "|---|---:|---:|---:|---:|",
    ...targets.map((target) => row(target.name)),
    "",
    "Targets:",
    "",
    `- SQLite /generate ≥ 0.5 × express: ${verdict(ratio("/generate, SQLite (offline engine)"), 0.5)}`,
    `- /generate through an instant upstream ≥ 0.35 × express: ${verdict(ratio("/generate, SQLite → mock upstream"), 0.35)}; and above Portkey in front of the same upstream: ${verdict(get("/generate, SQLite → mock upstream").rps / get("Portkey gateway → mock upstream").rps, 1)}`,
  ];
  if (postgresUrl !== undefined) {
    lines.push(
      `- PostgreSQL, one instance ≥ 0.3 × express: ${verdict(ratio("/generate, PostgreSQL, 1 instance"), 0.3)}`,
      `- PostgreSQL, two instances ≥ 1.6 × one: ${verdict(get("/generate, PostgreSQL, 2 instances").rps / get("/generate, PostgreSQL, 1 instance").rps, 1.6)}`,
    );
  } else {
    lines.push(`- PostgreSQL: skipped (${postgresSkipped})`);
  }
  lines.push(
    `- Overhead at ${fixedRate} requests/s above the express route (section below): p50 ${overhead.p50.toFixed(2)} ms (target < ${OVERHEAD_TARGET.p50} ms: ${overhead.p50 < OVERHEAD_TARGET.p50 ? "met" : "**missed**"}), p99 ${overhead.p99.toFixed(2)} ms (target < ${OVERHEAD_TARGET.p99} ms: ${overhead.p99 < OVERHEAD_TARGET.p99 ? "met" : "**missed**"})`,
    "",
    `CPU per request of the service (5 000 requests each): offline engine — main thread ${cpu.sqlite.main.toFixed(0)} µs, storage and other threads ${cpu.sqlite.others.toFixed(0)} µs; through the mock upstream — main thread ${cpu.upstream.main.toFixed(0)} µs, other threads ${cpu.upstream.others.toFixed(0)} µs. The express route's main thread: ${expressCpu.toFixed(0)} µs. The main thread is the limit (storage runs on worker threads); where its time goes is read from a profile in the section below.`,
    "",
    `Ledger after the run: ${ledgerOk ? "sums to the balance, nothing reserved" : "**does not match**"} (${JSON.stringify({ balance: account.balanceMicros, ledger: account.ledgerSumMicros, reserved: account.reservedMicros })}).`,
  );
  const section = lines.join("\n");
  writeSection(path.join(root, "docs/BENCHMARKS.md"), "generate", section);
  process.stdout.write(`\n${section}\n`);
}

try {
  if (only === "overhead") await overheadOnly();
  else if (only === "sampling") await samplingOnly();
  else await withPostgres(main);
} finally {
  cleanUp();
}
