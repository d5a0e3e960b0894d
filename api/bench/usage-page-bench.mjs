// npm run bench:usage (api): how long the customer's /usage page takes for a
// customer with a million usage rows on SQLite (target < 300 ms).
//
// A fresh SQLite store gets one account with 8 personas and 3 keys, then a
// million usage rows (and the million `charge` ledger entries they come with)
// spread evenly over the page's 30 days: every row is inside the period, the
// worst case for the page's sums. The service runs in this process as it runs
// in production (createServices + startServer from api/dist, SQLite worker
// threads, logging silent); GET /usage is timed over HTTP with a signed-in
// session, one request at a time, after warm-ups, and the median and p95 are
// written to docs/BENCHMARKS.md. The store's sums alone are timed too.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { machineLine, writeSection } from "../../bench/results-file.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const dist = (file) => import(pathToFileURL(path.join(root, "api/dist", file)).href);
const ROWS = Number(process.env.BENCH_USAGE_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_USAGE_RUNS ?? 30);
const WARM_UPS = 5;
const TARGET_MS = 300;

const { loadConfig } = await dist("config/config.js");
const { createServices } = await dist("create-services.js");
const { createLogger } = await dist("logging/logger.js");
const { startServer } = await dist("server.js");
const { SessionStore } = await dist("playground/session-store.js");
const { AllowedEmailStore } = await dist("playground/allowed-email-store.js");
const { readExamplePersona } = await dist("seed/demo-seed.js");
const { readUsageSummary } = await dist("usage/usage-summary.js");

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-usage-bench-"));
const databaseFile = path.join(directory, "store.sqlite");
const config = loadConfig({
  PERSONA_PORT: "0",
  PERSONA_DATABASE_URL: databaseFile,
  PERSONA_LOG_LEVEL: "silent",
  PERSONA_SEED_DEMO: "false",
  PERSONA_ENV_FILE: path.join(directory, ".env"),
});

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

try {
  // 1. Migrate and make the customer through the service's own stores.
  let services = await createServices(config, createLogger("silent"));
  const account = await services.accounts.create("Bench customer");
  const personas = [];
  for (let index = 0; index < 8; index += 1) {
    personas.push(
      await services.personas.create(account.id, {
        ...readExamplePersona(),
        name: `Persona ${index + 1}`,
      }),
    );
  }
  const keys = [];
  for (let index = 0; index < 3; index += 1) {
    keys.push((await services.keys.create(account.id, `key ${index + 1}`)).record);
  }
  await services.billing.balances.topUp(account.id, 10_000_000_000, "bench funds");
  await new AllowedEmailStore(services.database).allow("bench@example.com", account.id);
  const { token } = await new SessionStore(services.database, 3_600_000).create({
    accountId: account.id,
    email: "bench@example.com",
    userAgent: "bench",
  });
  await services.billing.close();
  await services.store.close();

  // 2. A million usage rows and their charges, written straight to the file.
  const seedStarted = performance.now();
  const sqlite = new Database(databaseFile);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = OFF");
  const insertUsage = sqlite.prepare(
    `insert into usage_records (id, created_at, account_id, api_key_id, persona_id, endpoint, status,
       input_tokens, output_tokens, cost_micros, request_id, payment_method, payment_reference, upstream, model)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'balance', null, 'offline', 'offline')`,
  );
  const insertCharge = sqlite.prepare(
    `insert into balance_entries (id, account_id, kind, amount_micros, usage_id, note, created_at)
     values (?, ?, 'charge', ?, ?, null, ?)`,
  );
  const endpoints = ["generate", "personify", "completions"];
  const now = Date.now();
  const periodStart = Math.floor(now / 86_400_000) * 86_400_000 - 29 * 86_400_000;
  const spacing = (now - periodStart) / ROWS;
  let spent = 0;
  const seed = sqlite.transaction((from, to) => {
    for (let index = from; index < to; index += 1) {
      const id = randomUUID();
      const createdAt = new Date(periodStart + Math.floor(index * spacing)).toISOString();
      const status = index % 50 === 0 ? 429 : 200;
      const cost = status === 200 ? 100 + (index % 7) * 10 : 0;
      spent += cost;
      insertUsage.run(
        id,
        createdAt,
        account.id,
        keys[index % keys.length].id,
        personas[index % personas.length].id,
        endpoints[index % endpoints.length],
        status,
        20 + (index % 13),
        40 + (index % 17),
        cost,
        randomUUID(),
      );
      if (cost > 0) insertCharge.run(randomUUID(), account.id, -cost, id, createdAt);
    }
  });
  for (let from = 0; from < ROWS; from += 50_000) seed(from, Math.min(ROWS, from + 50_000));
  sqlite
    .prepare("update accounts set balance_micros = balance_micros - ? where id = ?")
    .run(spent, account.id);
  sqlite.exec("analyze");
  sqlite.close();
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(`seeded ${ROWS} usage rows in ${seedSeconds.toFixed(1)} s`);

  // 3. The service as it runs, timed over HTTP.
  services = await createServices(config, createLogger("silent"));
  const server = await startServer(services);
  const fetchPage = async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/usage`, {
      headers: { cookie: `persona_session=${token}` },
    });
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`GET /usage answered ${response.status}`);
    return { elapsed, bytes: Buffer.byteLength(body) };
  };
  const loadAverage = os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(", ");
  for (let run = 0; run < WARM_UPS; run += 1) await fetchPage();
  const pageTimes = [];
  let bytes = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const result = await fetchPage();
    pageTimes.push(result.elapsed);
    bytes = result.bytes;
  }
  const summaryTimes = [];
  let lines = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    const summary = await readUsageSummary(services.database, account.id);
    summaryTimes.push(performance.now() - started);
    lines = summary.lines.length;
  }
  await server.stop();
  await services.billing.close();
  await services.store.close();

  pageTimes.sort((a, b) => a - b);
  summaryTimes.sort((a, b) => a - b);
  const median = percentile(pageTimes, 0.5);
  const p95 = percentile(pageTimes, 0.95);
  const storeMedian = percentile(summaryTimes, 0.5);
  console.log(
    `GET /usage: median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms; store sums median ${storeMedian.toFixed(1)} ms`,
  );
  writeSection(
    path.join(root, "docs/BENCHMARKS.md"),
    "usage-page",
    `## /usage for a customer with ${ROWS.toLocaleString("en-US")} usage rows (SQLite)

${machineLine()}

- Command: \`npm run bench:usage -w api\` (api/bench/usage-page-bench.mjs: a fresh SQLite store; one account with 8 personas, 3 keys, ${ROWS.toLocaleString("en-US")} usage rows and their charge entries spread evenly over the page's 30 days — every row inside the period; the service in the benchmark process from api/dist, logging silent; GET /usage with a signed-in session, ${RUNS} requests one at a time after ${WARM_UPS} warm-ups)
- Seeding took ${seedSeconds.toFixed(0)} s (not part of the figures). Load average when timing: ${loadAverage} (other work shared the machine).

| | median (ms) | p95 (ms) |
| --- | ---: | ---: |
| GET /usage, whole page over HTTP (${(bytes / 1024).toFixed(0)} KiB of HTML, ${lines} table lines, 5 charts) | ${median.toFixed(1)} | ${p95.toFixed(1)} |
| the store's sums alone (readUsageSummary: usage per day, persona and endpoint; ledger per day) | ${storeMedian.toFixed(1)} | ${percentile(summaryTimes, 0.95).toFixed(1)} |

Target: under ${TARGET_MS} ms for the page — ${median < TARGET_MS ? "met" : "**not met**"} (median).`,
  );
} finally {
  fs.rmSync(directory, { recursive: true, force: true });
}
