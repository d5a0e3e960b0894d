// npm run bench:retention (api): usage retention on a store of 10 million usage
// rows while POST /api/v1/generate runs at a fixed 200 requests/s (target:
// p99 of /generate during the run within 10 % of without
// it; database or file size before and after), on PostgreSQL (monthly
// partitions: the month wholly older than the cutoff is dropped) and SQLite
// (batched deletes, then incremental_vacuum).
//
// Per dialect: a fresh store is onboarded through persona-admin (migrations,
// an account, an offline persona, a key), then BENCH_RETENTION_ROWS usage rows
// are written set-based (PostgreSQL: generate_series; SQLite: a recursive CTE,
// 1 M rows a transaction), spread evenly from the first day of the month three
// months back to now, with their daily totals summed once (the per-row trigger
// is held off while filling). The retention period is chosen so that its cutoff
// is the first day of the next month: the run removes that whole calendar month
// (about 30 days, a quarter of the rows). The service runs from api/dist with
// retention off; one autocannon load at a fixed 200 requests/s records every
// response's latency: 30 s before, during a retention run
// (one run of a second instance's store, opened beforehand, default batch size
// and pause), and 30 s after. The
// figures go to docs/BENCHMARKS.md. Not part of `npm run bench` (it takes
// several minutes per dialect). Run it under `flock /tmp/bench.lock`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import pg from "pg";
import { machineLine, writeSection } from "../../bench/results-file.mjs";
import {
  cleanUp,
  directory,
  fixedRate,
  generateBody,
  onboard,
  root,
  startService,
  withPostgres,
} from "./bench-support.mjs";

const ROWS = Number(process.env.BENCH_RETENTION_ROWS ?? 10_000_000);
const WINDOW_SECONDS = Number(process.env.BENCH_RETENTION_WINDOW_SECONDS ?? 30);
const DIALECTS = (process.env.BENCH_RETENTION_DIALECTS ?? "postgres,sqlite").split(",");
const CHUNK = 1_000_000;
const DAY = 86_400_000;
const dist = (file) => import(pathToFileURL(path.join(root, "api/dist", file)).href);
const { monthOf, monthPartition, monthsBetween } = await dist("usage/usage-partitions.js");
const { retentionCutoff } = await dist("usage/retention-settings.js");
const { loadConfig } = await dist("config/config.js");
const { createServices } = await dist("create-services.js");
const { createLogger } = await dist("logging/logger.js");

/** The period: from the first day of the month three months back; the cutoff a month later. */
function period(now = new Date()) {
  const firstMonth = monthOf(now, -3);
  const start = Date.parse(`${firstMonth}-01T00:00:00.000Z`);
  const cutoff = `${monthOf(now, -2)}-01T00:00:00.000Z`;
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const days = Math.round((today - Date.parse(cutoff)) / DAY);
  if (retentionCutoff(days, now) !== cutoff) throw new Error("retention cutoff mismatch");
  return { firstMonth, start, end: now.getTime(), cutoff, days };
}

const DAILY_TOTALS = (source) => `insert into usage_daily_totals
    (account_id, day, persona_id, endpoint, requests, served, input_tokens, output_tokens, cost_micros)
  select account_id, substr(created_at, 1, 10), coalesce(persona_id, ''), endpoint, count(*),
    sum(case when status = 200 then 1 else 0 end), sum(input_tokens), sum(output_tokens), sum(cost_micros)
  from ${source} group by account_id, substr(created_at, 1, 10), coalesce(persona_id, ''), endpoint
  on conflict (account_id, day, persona_id, endpoint) do update set
    requests = usage_daily_totals.requests + excluded.requests,
    served = usage_daily_totals.served + excluded.served,
    input_tokens = usage_daily_totals.input_tokens + excluded.input_tokens,
    output_tokens = usage_daily_totals.output_tokens + excluded.output_tokens,
    cost_micros = usage_daily_totals.cost_micros + excluded.cost_micros`;

/** Columns of a bench row `i` (SQL over `i`): UUID-shaped IDs in order, given its ID digits and timestamp. */
function rowColumns(digits, timestamp, customer) {
  return `'00000000-0000-4000-8000-' || ${digits}, ${timestamp},
    '${customer.accountId}', '${customer.keyId}', '${customer.personaId}', 'generate',
    case when i % 50 = 0 then 429 else 200 end, 20 + i % 13, 40 + i % 17,
    0, 'req-' || i, 'x402', null, 1, 'offline', 'offline-composer-1'`;
}
const COLUMNS = `id, created_at, account_id, api_key_id, persona_id, endpoint, status, input_tokens,
  output_tokens, cost_micros, request_id, payment_method, payment_reference, persona_version, upstream, model`;

async function fillPostgres(url, customer, span) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const month of monthsBetween(span.firstMonth, monthOf(new Date(), 2))) {
      const partition = monthPartition(month);
      await client.query(
        `create table if not exists ${partition.name} partition of usage_records for values from ('${partition.from}') to ('${partition.to}')`,
      );
    }
    const spacing = (span.end - span.start) / ROWS;
    const timestamp = `to_char(to_timestamp((${span.start} + floor(i * ${spacing})) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    // Superuser: no triggers while filling (the daily totals are summed once after).
    await client.query("set session_replication_role = replica");
    for (let from = 0; from < ROWS; from += CHUNK) {
      const to = Math.min(ROWS, from + CHUNK) - 1;
      await client.query(
        `insert into usage_records (${COLUMNS})
         select ${rowColumns("lpad(i::text, 12, '0')", timestamp, customer)} from generate_series(${from}::bigint, ${to}::bigint) as s(i)`,
      );
      process.stdout.write(`postgres: ${to + 1} rows\r`);
    }
    await client.query(DAILY_TOTALS("usage_records"));
    await client.query("set session_replication_role = origin");
    await client.query("vacuum analyze usage_records");
    await client.query("checkpoint");
  } finally {
    await client.end();
  }
}

function fillSqlite(file, customer, span) {
  const sqlite = new Database(file);
  try {
    sqlite.pragma("synchronous = OFF");
    const trigger = sqlite
      .prepare("select sql from sqlite_master where type = 'trigger' and name = ?")
      .get("usage_records_daily_insert");
    sqlite.exec("drop trigger usage_records_daily_insert");
    const spacing = (span.end - span.start) / ROWS;
    const timestamp = `strftime('%Y-%m-%dT%H:%M:%fZ', (${span.start} + cast(i * ${spacing} as integer)) / 1000.0, 'unixepoch')`;
    for (let from = 0; from < ROWS; from += CHUNK) {
      const to = Math.min(ROWS, from + CHUNK) - 1;
      sqlite.exec(`insert into usage_records (${COLUMNS})
        with recursive s(i) as (select ${from} union all select i + 1 from s where i < ${to})
        select ${rowColumns("substr('000000000000' || i, -12, 12)", timestamp, customer)} from s`);
      process.stdout.write(`sqlite: ${to + 1} rows\r`);
    }
    sqlite.exec(DAILY_TOTALS("usage_records"));
    sqlite.exec(trigger.sql);
    sqlite.exec("analyze");
    sqlite.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    sqlite.close();
  }
}

async function postgresSizes(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`select pg_database_size(current_database()) as database,
      (select coalesce(sum(pg_total_relation_size(relid)), 0) from pg_partition_tree('usage_records')) as usage,
      (select count(*) from usage_records) as rows`);
    return {
      database: Number(rows[0].database),
      usage: Number(rows[0].usage),
      rows: Number(rows[0].rows),
    };
  } finally {
    await client.end();
  }
}

function sqliteSizes(file) {
  const sqlite = new Database(file);
  try {
    sqlite.pragma("wal_checkpoint(TRUNCATE)");
    const rows = sqlite.prepare("select count(*) as rows from usage_records").get().rows;
    return { database: fs.statSync(file).size, usage: null, rows };
  } finally {
    sqlite.close();
  }
}

function percentile(sorted, fraction) {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/**
 * The store of a second instance, opened before the measured window (as a
 * running instance's job is): `run()` is one retention run, timed, with the
 * default batch size and pause.
 */
async function retentionInstance(url, days) {
  const config = loadConfig({
    PERSONA_DATABASE_URL: url,
    PERSONA_USAGE_RETENTION_DAYS: String(days),
    PERSONA_LOG_LEVEL: "silent",
    PERSONA_INSTANCE_ID: "bench-retention",
    PERSONA_SEED_DEMO: "false",
    PERSONA_ENV_FILE: path.join(directory, "bench.env"),
  });
  const services = await createServices(config, createLogger("silent"));
  return {
    async run() {
      const started = performance.now();
      const report = await services.retention.run();
      return { report, seconds: (performance.now() - started) / 1000 };
    },
    async close() {
      await services.billing.close();
      await services.store.close();
    },
  };
}

async function measure(dialect, url) {
  const span = period();
  const customer = onboard(url, [{ upstream: "offline", model: "offline-composer-1" }]);
  customer.keyId = await (async () => {
    if (dialect === "postgres") {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query("select id from api_keys limit 1");
      await client.end();
      return rows[0].id;
    }
    const sqlite = new Database(url);
    const row = sqlite.prepare("select id from api_keys limit 1").get();
    sqlite.close();
    return row.id;
  })();
  const fillStarted = performance.now();
  if (dialect === "postgres") await fillPostgres(url, customer, span);
  else fillSqlite(url, customer, span);
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  console.log(`${dialect}: filled ${ROWS} rows in ${fillSeconds.toFixed(0)} s`);
  const before = dialect === "postgres" ? await postgresSizes(url) : sqliteSizes(url);

  const service = await startService(url, { PERSONA_USAGE_RETENTION_DAYS: "off" });
  const target = `${service.url}/api/v1/generate`;
  const headers = {
    "content-type": "application/json",
    authorization: `Bearer ${customer.apiKey}`,
  };
  const body = generateBody(customer.personaId);
  await autocannon({
    url: target,
    method: "POST",
    headers,
    body,
    connections: 10,
    duration: 5,
    overallRate: fixedRate,
  });

  const phases = { before: [], during: [], after: [] };
  let phase = "before";
  let failed = 0;
  const instance = autocannon({
    url: target,
    method: "POST",
    headers,
    body,
    connections: 10,
    duration: 3600,
    overallRate: fixedRate,
  });
  instance.on("response", (_client, status, _bytes, responseTime) => {
    if (status !== 200) failed += 1;
    phases[phase].push(responseTime);
  });
  const finished = new Promise((resolve) => instance.once("done", resolve));
  const retention = await retentionInstance(url, span.days);
  await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
  phase = "during";
  const run = await retention.run();
  phase = "after";
  await retention.close();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000));
  instance.stop();
  await finished;
  service.child.kill("SIGTERM");
  await new Promise((resolve) => service.child.once("exit", resolve));
  const after = dialect === "postgres" ? await postgresSizes(url) : sqliteSizes(url);
  const result = {
    dialect,
    span,
    fillSeconds,
    before,
    after,
    run,
    failed,
    latency: {
      before: summary(phases.before),
      during: summary(phases.during),
      after: summary(phases.after),
      baseline: summary([...phases.before, ...phases.after]),
    },
    load: os
      .loadavg()
      .map((value) => value.toFixed(1))
      .join(", "),
  };
  console.log(
    JSON.stringify({
      ...result,
      run: { ...result.run, report: { ...run.report, archiveFiles: undefined } },
    }),
  );
  return result;
}

const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);
const ms = (value) => value.toFixed(1);

function section(results) {
  const rows = results.map((result) => {
    const { latency, run } = result;
    const ratio = latency.during.p99 / latency.baseline.p99;
    return {
      result,
      ratio,
      line: `| ${result.dialect === "postgres" ? "PostgreSQL (partition drop)" : "SQLite (batched deletes + incremental_vacuum)"} | ${ms(latency.baseline.p50)} / ${ms(latency.during.p50)} | ${ms(latency.before.p99)} / ${ms(latency.after.p99)} / **${ms(latency.during.p99)}** | ${ratio.toFixed(2)} | ${ms(latency.baseline.max)} / ${ms(latency.during.max)} | ${latency.during.count} | ${run.seconds.toFixed(1)} | ${run.report.usageRowsRemoved.toLocaleString("en-US")}${run.report.partitionsDropped?.length ? ` (${run.report.partitionsDropped.join(", ")} dropped)` : ""} | ${mib(result.before.database)} → ${mib(result.after.database)} |`,
    };
  });
  const first = results[0];
  return `## Usage retention on ${ROWS.toLocaleString("en-US")} usage rows under /generate at ${fixedRate} requests/s

${machineLine()}

- Command: \`flock /tmp/bench.lock npm run bench:retention -w api\` (api/bench/retention-bench.mjs; not in \`npm run bench\`: it takes several minutes per dialect). Date: ${new Date().toISOString().slice(0, 10)}.
- Store: ${ROWS.toLocaleString("en-US")} usage rows of one account spread evenly from ${first?.span.firstMonth}-01 to now, written set-based (fill times: ${results.map((result) => `${result.dialect} ${result.fillSeconds.toFixed(0)} s`).join(", ")}; not part of the figures). No ledger entries among them (x402 rows): the run removes usage rows only. Retention ${first?.span.days} days, so the cutoff is ${first?.span.cutoff}: the run removes one whole calendar month (about a quarter of the rows). Default batch size (1000) and pause (100 ms); the run is one \`UsageRetention.run()\` of a second instance's store (createServices from api/dist in the benchmark process, opened before the measured windows, as a running instance's hourly job is; on PostgreSQL the instance that holds the advisory lock).
- Load: the service from api/dist (retention off, request log on), POST /api/v1/generate (offline engine, billing and rate limits on) at a fixed ${fixedRate} requests/s over 10 connections (autocannon), every response's latency recorded: ${WINDOW_SECONDS} s before the run, during it, ${WINDOW_SECONDS} s after. Baseline = before and after together. Failed requests: ${results.map((result) => `${result.dialect} ${result.failed}`).join(", ")}. Load average at the end: ${results.map((result) => `${result.dialect} ${result.load}`).join("; ")} (other work shared the machine).

| store | p50 baseline / during (ms) | p99 before / after / **during** (ms) | p99 during ÷ baseline | max baseline / during (ms) | requests during | run (s) | rows removed | database or file (MiB) before → after |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.map((row) => row.line).join("\n")}

Target: p99 during the run within 10 % of without it (ratio ≤ 1.10) — ${rows.map((row) => `${row.result.dialect}: ${row.ratio <= 1.1 ? "met" : `**not met** (+${((row.ratio - 1) * 100).toFixed(0)} %)`}`).join("; ")}.`;
}

const results = [];
try {
  for (const dialect of DIALECTS) {
    if (dialect === "postgres")
      results.push(
        await withPostgres((url, unreachable) => {
          if (url === undefined) throw new Error(unreachable);
          return measure(dialect, url);
        }),
      );
    else results.push(await measure(dialect, path.join(directory, "retention.sqlite")));
  }
  const markdown = section(results);
  console.log(markdown);
  if (process.env.BENCH_RETENTION_WRITE !== "false") {
    writeSection(path.join(root, "docs/BENCHMARKS.md"), "retention", markdown);
  }
} finally {
  cleanUp();
}
