// npm run bench (api): how fast the request path is next to the framework under
// it and the gateway users compare it with (issue 14), measured in one run,
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
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { machineLine, writeSection } from "../../bench/results-file.mjs";
import {
  admin,
  children,
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
  startProcess,
  startReference,
  startService,
  threadCpu,
} from "./bench-support.mjs";

const postgresAdminUrl =
  process.env.PERSONA_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function withPostgres(run) {
  const name = `persona_bench_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({
    connectionString: postgresAdminUrl,
    connectionTimeoutMillis: 3000,
  });
  try {
    await client.connect();
  } catch (error) {
    return run(undefined, `PostgreSQL unreachable at ${postgresAdminUrl} (${error.message})`);
  }
  await client.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 500));
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  }
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
  const fixed = {
    express: await load(expressTarget, duration, fixedRate),
    sqlite: await load(sqliteTarget, duration, fixedRate),
  };

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
    "Targets (issue 14):",
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
  const overheadP50 = fixed.sqlite.p50 - fixed.express.p50;
  const overheadP99 = fixed.sqlite.p99 - fixed.express.p99;
  lines.push(
    `- Overhead at ${fixedRate} requests/s above the express route: p50 ${overheadP50.toFixed(2)} ms (target < 1 ms: ${overheadP50 < 1 ? "met" : "**missed**"}), p99 ${overheadP99.toFixed(2)} ms (target < 5 ms: ${overheadP99 < 5 ? "met" : "**missed**"}) — service p50/p99 ${fixed.sqlite.p50}/${fixed.sqlite.p99} ms, express ${fixed.express.p50}/${fixed.express.p99} ms`,
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
  await withPostgres(main);
} finally {
  cleanUp();
}
