// npm run bench:db-cost (api; also part of npm run bench): what one
// /api/v1/generate request costs the database, so that changes to
// the request path can be measured before and after with one command.
//
// PostgreSQL runs as a private cluster of this benchmark (initdb into the
// temporary folder, PostgreSQL's default settings: fsync and
// synchronous_commit on, shared_buffers 128 MB, checkpoints every 5 min),
// started from the installed server binaries (pg_config --bindir, else
// /usr/lib/postgresql/*/bin), so that its CPU time, its write-ahead log and
// its statistics are this benchmark's alone. Set PERSONA_BENCH_POSTGRES_URL
// to use a running server instead: then only its backends of the benchmark's
// databases and its background processes are counted, and WAL bytes include
// whatever else that server wrote meanwhile.
//
// Scenarios, each on a database of its own, the services built from
// api/dist (offline engine, billing and rate limits on, request logging on):
//   a. 1 instance, 1 hot account       c. 2 instances, 1 hot account
//   b. 1 instance, 100 accounts        d. 2 instances, 100 accounts
// (100 accounts: 100 funded accounts with a key and a persona each, requests
// spread round robin), the same a and d with Redis for the rate limits when
// Redis answers (PERSONA_BENCH_REDIS_URL, default redis://127.0.0.1:6379),
// /generate on SQLite (statements per request), and the express route of
// express-server.mjs. BENCH_ROUNDS rounds (3) run every target for
// BENCH_DURATION_SECONDS (5) in turn at BENCH_CONNECTIONS (10) connections,
// split between the instances, after a 2 s warm-up each.
//
// Per request, summed over a scenario's runs: PostgreSQL server CPU (utime +
// stime from /proc of every process of the cluster by process kind, CLK_TCK
// ticks, processes that ended through the postmaster's cutime + cstime), WAL bytes
// (pg_current_wal_lsn before and after each run), statements
// (persona_storage_statements_total of each instance's /metrics) and commits
// (pg_stat_database xact_commit + xact_rollback of the scenario's database,
// read after an 11 s pause at the start and at the end because backends
// flush their statistics up to 10 s after going idle; the statements the
// instances ran between runs — the change feed's heartbeat, one autocommit
// statement each — are subtracted); the instances' own CPU (/proc, every
// thread) beside the server's; and the WAL by record kind (pg_walinspect's
// pg_get_wal_stats over each run, when the server allows it) and by the
// table each record changes (pg_get_wal_records_info). Requests/s is
// the median round; the ratios (2 instances ÷ 1, 1 instance ÷ express) are
// medians of per-round ratios. Results go to docs/BENCHMARKS.md (section
// "db-cost"); the analysis written by hand follows that section.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { machineLine, writeSection } from "../../bench/results-file.mjs";
import { connectPostgres, startPrivatePostgres } from "../../test-support/private-postgres.mjs";
import {
  children,
  cleanUp,
  connections,
  directory,
  duration,
  generateBody,
  load,
  median,
  metricValue,
  root,
  rounds,
  scrapeMetrics,
  startReference,
  startService,
} from "./bench-support.mjs";

const dist = (file) => import(pathToFileURL(path.join(root, "api/dist", file)).href);
const { loadConfig } = await dist("config/config.js");
const { createServices } = await dist("create-services.js");
const { createLogger } = await dist("logging/logger.js");
const { readExamplePersona } = await dist("seed/demo-seed.js");

/** The database-cost targets (docs/SCALING.md "Where the database-cost targets stand"), per request and as ratios. */
const TARGETS = { cpuUs: 300, commits: 0.5, walBytes: 1200, twoOverOne: 1.0, overExpress: 0.2 };
const MANY_ACCOUNTS = Number(process.env.BENCH_DB_COST_ACCOUNTS ?? 100);
const FLUSH_WAIT_MS = 11_000;
const REDIS_URL = process.env.PERSONA_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;
const offline = [{ upstream: "offline", model: "offline-composer-1" }];
const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

// --- PostgreSQL: a private cluster, or the server named -------------------------

/** The benchmark's own cluster (test-support/private-postgres.mjs), in its temporary folder. */
async function startPrivateCluster() {
  const cluster = await startPrivatePostgres(directory);
  return { ...cluster, private: true };
}

async function namedServer(url) {
  const admin = await connectPostgres(url);
  const [row] = (await admin.query("select pg_backend_pid() as pid")).rows;
  let postmaster;
  try {
    const stat = fs.readFileSync(`/proc/${row.pid}/stat`, "utf8");
    postmaster = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    postmaster = undefined; // not on this machine: no CPU figures
  }
  return { url, admin, postmaster, private: false, stop: () => admin.end() };
}

/** `/proc/PID/stat` fields after the command name: [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime. */
function statFields(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // exited meanwhile
  }
}

/**
 * The kind of a PostgreSQL process, from its title (`postgres: walwriter`,
 * `postgres: autovacuum worker db`, `postgres: user db 127.0.0.1(port) idle`).
 */
function processKind(title) {
  if (/\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/u.test(title)) return "backends";
  if (title.includes("autovacuum")) return "autovacuum";
  if (title.includes("walwriter")) return "WAL writer";
  if (title.includes("checkpointer") || title.includes("background writer")) {
    return "checkpointer and background writer";
  }
  return "other";
}

/**
 * The kinds of {@link serverTicksBetween}, as columns; the last, the CPU that
 * children which ended during the interval used in it (private cluster only).
 */
const SERVER_KINDS = [
  "backends",
  "autovacuum",
  "WAL writer",
  "checkpointer and background writer",
  "other",
  "ended",
];

/**
 * A reading of the server's CPU ticks so far: each child of the postmaster
 * (on a named server, only backends of `databases` and the background
 * processes) by process ID with its kind, the postmaster itself (`other`),
 * and, on the private cluster, what its reaped children used (utime +
 * stime of /proc; undefined on a named server, whose postmaster is not
 * ours). Undefined when the server is not on this machine.
 */
function serverTicks(server, databases) {
  if (server.postmaster === undefined) return undefined;
  const processes = new Map();
  let reaped;
  const own = statFields(server.postmaster);
  if (own !== undefined) {
    processes.set(server.postmaster, { kind: "other", ticks: Number(own[11]) + Number(own[12]) });
    if (server.private) reaped = Number(own[13]) + Number(own[14]);
  }
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/u.test(entry)) continue;
    const fields = statFields(entry);
    if (fields === undefined || Number(fields[1]) !== server.postmaster) continue;
    let title = "";
    try {
      title = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue;
    }
    const kind = processKind(title);
    if (!server.private && kind === "backends" && !databases.some((name) => title.includes(name))) {
      continue;
    }
    processes.set(Number(entry), { kind, ticks: Number(fields[11]) + Number(fields[12]) });
  }
  return { processes, reaped };
}

/**
 * CPU ticks between two {@link serverTicks} readings by {@link SERVER_KINDS}:
 * a process living at the end counts what it used since the first reading
 * (all of it when it started since); children reaped in between count as
 * `ended`, less what they had used by the first reading (on a named server,
 * where what they used is not known, they count nothing). Undefined when
 * either reading is.
 */
function serverTicksBetween(before, after) {
  if (before === undefined || after === undefined) return undefined;
  const ticks = serverTicksZero();
  for (const [pid, { kind, ticks: used }] of after.processes) {
    ticks[kind] += used - (before.processes.get(pid)?.ticks ?? 0);
  }
  if (after.reaped === undefined || before.reaped === undefined) return ticks;
  ticks.ended = after.reaped - before.reaped;
  for (const [pid, { ticks: used }] of before.processes) {
    if (!after.processes.has(pid)) ticks.ended -= used;
  }
  return ticks;
}

/** Adds a {@link serverTicksBetween} difference to `into` (undefined stays undefined). */
function addServerTicks(into, between) {
  if (into === undefined || between === undefined) return undefined;
  for (const kind of SERVER_KINDS) into[kind] += between[kind];
  return into;
}

/** A {@link serverTicksBetween} difference of nothing yet. */
const serverTicksZero = () => Object.fromEntries(SERVER_KINDS.map((kind) => [kind, 0]));

/** The sum of a {@link serverTicksBetween} difference. */
const totalTicks = (ticks) =>
  ticks === undefined ? undefined : SERVER_KINDS.reduce((sum, kind) => sum + ticks[kind], 0);

async function walLsn(server) {
  const [row] = (await server.admin.query("select pg_current_wal_lsn() as lsn")).rows;
  return row.lsn;
}

async function walBytesBetween(server, from, to) {
  const [row] = (
    await server.admin.query("select pg_wal_lsn_diff($2, $1)::bigint as bytes", [from, to])
  ).rows;
  return Number(row.bytes);
}

/** Transactions (commits and rollbacks) and bytes on disk of each database. */
async function databaseTotals(server, names) {
  const { rows } = await server.admin.query(
    "select datname, xact_commit + xact_rollback as transactions, pg_database_size(datname) as bytes from pg_stat_database where datname = any($1)",
    [names],
  );
  return new Map(
    rows.map((row) => [
      row.datname,
      { transactions: Number(row.transactions), bytes: Number(row.bytes) },
    ]),
  );
}

/** CPU ticks (utime + stime, every thread) the service instances have used so far. */
function instanceTicks(instances) {
  let ticks = 0;
  for (const instance of instances) {
    const fields = statFields(instance.child.pid);
    if (fields !== undefined) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks;
}

/**
 * WAL record kinds, as columns of the breakdown table: the resource manager
 * and record type of `pg_get_wal_stats` (pg_walinspect, PostgreSQL 15)
 * matched by prefix, the first match wins.
 */
const WAL_KINDS = [
  { kind: "row inserts", match: ["Heap/INSERT"] },
  {
    kind: "index inserts",
    match: [
      "Btree/INSERT_LEAF",
      "Btree/SPLIT",
      "Btree/INSERT_UPPER",
      "Btree/DEDUP",
      "Btree/NEWROOT",
    ],
  },
  { kind: "row updates", match: ["Heap/HOT_UPDATE", "Heap/UPDATE"] },
  { kind: "row locks", match: ["Heap/LOCK", "Heap2/LOCK_UPDATED"] },
  { kind: "row deletes", match: ["Heap/DELETE"] },
  { kind: "commits", match: ["Transaction/"] },
];

/**
 * Runs a pg_walinspect query, or gives undefined when it cannot be used
 * (not installed, or no superuser on a named server); tried 3 times 300 ms
 * apart, as the end of a run may not be flushed yet (relaxed commits).
 */
async function walInspect(server, text, values) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return (await server.admin.query(text, values)).rows;
    } catch {
      if (attempt >= 3) return undefined;
      await sleep(300);
    }
  }
}

/** What a WAL record that names no table of the scenario's database counts as. */
const NO_TABLE = "no table (commits, …)";

/**
 * The table each relation file of a scenario's database belongs to, by its
 * file node: a partition as its partitioned table, an index as `<table>
 * (indexes)`. Read after each run (a partition made meanwhile has a file of
 * its own).
 */
async function tableLabels(client) {
  const { rows } = await client.query(`select pg_relation_filenode(c.oid)::text as filenode,
      case when c.relkind in ('i', 'I')
        then coalesce(pg_partition_root(i.indrelid), i.indrelid)::regclass::text || ' (indexes)'
        else coalesce(pg_partition_root(c.oid), c.oid)::regclass::text end as label
    from pg_class c left join pg_index i on i.indexrelid = c.oid
    where pg_relation_filenode(c.oid) is not null`);
  return new Map(rows.map((row) => [row.filenode, row.label]));
}

/**
 * WAL bytes between two positions by the table of the scenario's database
 * that each record changes (records with their full-page images; records
 * of no table — commits — and of other databases as {@link NO_TABLE}), or
 * undefined when pg_walinspect cannot be used.
 */
async function walTablesBetween(server, scenario, from, to) {
  const rows = await walInspect(
    server,
    `select refs[1] as database, refs[2] as filenode, sum(record_length) as bytes
    from (select regexp_match(block_ref, 'rel \\d+/(\\d+)/(\\d+)') as refs, record_length
      from pg_get_wal_records_info($1, $2)) r
    group by 1, 2`,
    [from, to],
  );
  if (rows === undefined) return undefined;
  const labels = await tableLabels(scenario.client);
  const bytes = {};
  for (const row of rows) {
    const label =
      row.database === scenario.databaseOid ? (labels.get(row.filenode) ?? NO_TABLE) : NO_TABLE;
    bytes[label] = (bytes[label] ?? 0) + Number(row.bytes);
  }
  return bytes;
}

/**
 * WAL bytes between two positions by {@link WAL_KINDS} (records and their
 * full-page images apart), or undefined when pg_walinspect cannot be used
 * (not installed, or no superuser on a named server).
 */
async function walKindsBetween(server, from, to) {
  const rows = await walInspect(
    server,
    `select "resource_manager/record_type" as type, record_size, fpi_size from pg_get_wal_stats($1, $2, true) where count > 0`,
    [from, to],
  );
  if (rows === undefined) return undefined;
  const bytes = Object.fromEntries([
    ...WAL_KINDS.map(({ kind }) => [kind, 0]),
    ["other", 0],
    ["full-page images", 0],
  ]);
  for (const row of rows) {
    const kind =
      WAL_KINDS.find(({ match }) => match.some((prefix) => row.type.startsWith(prefix)))?.kind ??
      "other";
    bytes[kind] += Number(row.record_size);
    bytes["full-page images"] += Number(row.fpi_size);
  }
  return bytes;
}

// --- accounts, instances, load -----------------------------------------------------

/** Funded accounts with a persona (offline engine) and a key far above the run's limits, in process. */
async function onboardMany(databaseUrl, count) {
  const services = await createServices(
    loadConfig({
      PERSONA_DATABASE_URL: databaseUrl,
      PERSONA_LOG_LEVEL: "silent",
      PERSONA_SEED_DEMO: "false",
      PERSONA_ENV_FILE: path.join(directory, "onboard.env"),
    }),
    createLogger("silent"),
    { tracing: false },
  );
  const customers = [];
  try {
    for (let index = 0; index < count; index += 1) {
      const account = await services.accounts.create(`Bench account ${index + 1}`);
      await services.billing.balances.topUp(account.id, 1_000_000_000_000, "bench funds");
      const persona = await services.personas.create(account.id, {
        ...readExamplePersona(),
        route: offline,
      });
      const key = await services.keys.create(account.id, "bench");
      const limit = 100_000_000;
      await services.billing.limits.setForKey(key.record.id, {
        minute: limit,
        hour: limit,
        day: limit,
      });
      customers.push({
        headers: { "content-type": "application/json", "x-api-key": key.key },
        body: generateBody(persona.id),
      });
    }
  } finally {
    await services.billing.close();
    await services.store.close();
  }
  return customers;
}

/**
 * What the instances have counted so far, summed: statements
 * (persona_storage_statements_total) and, per ledger operation, the
 * seconds and calls of persona_storage_write_duration_seconds.
 */
async function countersOf(instances) {
  const total = { statements: 0, admitSeconds: 0, admits: 0, settleSeconds: 0, settles: 0 };
  for (const instance of instances) {
    const text = await scrapeMetrics(instance.url);
    const write = (suffix, operation) =>
      metricValue(text, `persona_storage_write_duration_seconds_${suffix}`, {
        operation,
        outcome: "ok",
      });
    total.statements += metricValue(text, "persona_storage_statements_total");
    total.admitSeconds += write("sum", "admit");
    total.admits += write("count", "admit");
    total.settleSeconds += write("sum", "settle");
    total.settles += write("count", "settle");
  }
  return total;
}

/** The counters of {@link countersOf} gathered between two readings, added into `into`. */
function addCounters(into, before, after) {
  for (const key of Object.keys(before)) into[key] = (into[key] ?? 0) + after[key] - before[key];
}

/** Statements each instance has counted so far. */
async function statementsOf(instances) {
  return (await countersOf(instances)).statements;
}

/**
 * Loads the instances of a scenario for `seconds`, `clients` connections
 * (the benchmark's own by default) split between them, each request taking
 * the next customer in turn.
 */
async function drive(scenario, seconds, clients = connections) {
  let next = 0;
  const share = Math.max(1, Math.floor(clients / scenario.instances.length));
  const runs = await Promise.all(
    scenario.instances.map((instance) =>
      autocannon({
        url: instance.url,
        connections: share,
        duration: seconds,
        requests: [
          {
            method: "POST",
            path: "/api/v1/generate",
            setupRequest(request) {
              const customer = scenario.customers[next % scenario.customers.length];
              next += 1;
              return { ...request, headers: customer.headers, body: customer.body };
            },
          },
        ],
      }),
    ),
  );
  const failed = runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0);
  if (failed > 0) throw new Error(`${scenario.name}: ${failed} failed requests`);
  const requests = runs.reduce((sum, run) => sum + run["2xx"], 0);
  return {
    rps: runs.reduce((sum, run) => sum + run.requests.average, 0),
    requests,
    // Mean latency over every instance's requests, ms.
    latencyMs: runs.reduce((sum, run) => sum + run.latency.mean * run["2xx"], 0) / requests,
  };
}

function redisAnswers(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname);
    socket.setTimeout(1000);
    socket.once("connect", () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Markdown lines of a per-scenario table: its caption, a heading row
 * (`scenario` and `headings`), and one row per measured scenario with the
 * cells `cells(scenario)` gives, then a blank line.
 */
function scenarioTableLines(caption, headings, measured, cells) {
  return [
    caption,
    "",
    `| scenario | ${headings.join(" | ")} |`,
    `|---|${headings.map(() => "---:").join("|")}|`,
    ...measured.map(
      ({ scenario }) => `| PostgreSQL, ${scenario.name} | ${cells(scenario).join(" | ")} |`,
    ),
    "",
  ];
}

/**
 * The WAL breakdown table (bytes per request by {@link WAL_KINDS}), or
 * nothing when pg_walinspect could not be used.
 */
function walKindLines(rows) {
  const columns = [...WAL_KINDS.map(({ kind }) => kind), "other", "full-page images"];
  const measured = rows.filter(
    ({ scenario }) => !scenario.walKindsMissing && Object.keys(scenario.walKinds).length > 0,
  );
  if (measured.length === 0) return [];
  return scenarioTableLines(
    "WAL bytes per request by record kind (`pg_get_wal_stats` of pg_walinspect over each run; an index insert is about 100 bytes, a usage row about 260):",
    columns,
    measured,
    (scenario) =>
      columns.map((column) => ((scenario.walKinds[column] ?? 0) / scenario.requests).toFixed(0)),
  );
}

/** A table's column heading: its name as code, `(indexes)` after it for its indexes. */
function tableHeading(table) {
  const indexes = table.endsWith(" (indexes)");
  return indexes ? `\`${table.slice(0, -" (indexes)".length)}\` (indexes)` : `\`${table}\``;
}

/**
 * The WAL-by-table breakdown (bytes per request of each table that took at
 * least 5 bytes a request in some scenario, largest first; the rest as
 * "other tables"), or nothing when pg_walinspect could not be used.
 */
function walTableLines(rows) {
  const measured = rows.filter(({ scenario }) => Object.keys(scenario.walTables).length > 0);
  if (measured.length === 0) return [];
  const perRequest = (scenario, table) => (scenario.walTables[table] ?? 0) / scenario.requests;
  const largest = new Map();
  for (const { scenario } of measured) {
    for (const table of Object.keys(scenario.walTables)) {
      largest.set(table, Math.max(largest.get(table) ?? 0, perRequest(scenario, table)));
    }
  }
  const columns = [...largest]
    .filter(([table, bytes]) => table !== NO_TABLE && bytes >= 5)
    .sort((a, b) => b[1] - a[1])
    .map(([table]) => table);
  const other = (scenario) =>
    Object.keys(scenario.walTables)
      .filter((table) => table !== NO_TABLE && !columns.includes(table))
      .reduce((sum, table) => sum + perRequest(scenario, table), 0);
  return scenarioTableLines(
    "WAL bytes per request by table (`pg_get_wal_records_info` over each run: each record, with its full-page image, under the table it changes; a partition under its partitioned table):",
    [...columns.map(tableHeading), "other tables", NO_TABLE],
    measured,
    (scenario) => [
      ...columns.map((table) => perRequest(scenario, table).toFixed(0)),
      other(scenario).toFixed(0),
      perRequest(scenario, NO_TABLE).toFixed(0),
    ],
  );
}

/**
 * Markdown lines of the server's CPU per request by process kind
 * ({@link SERVER_KINDS}), or none when the server is not on this machine.
 */
function serverKindLines(rows) {
  const measured = rows.filter(({ scenario }) => scenario.ticks !== undefined);
  if (measured.length === 0) return [];
  const perRequest = (scenario, kind) =>
    (scenario.ticks[kind] * 1e6) / CLOCK_TICKS / scenario.requests;
  return scenarioTableLines(
    "Server CPU per request by process (µs): the backends serving the instances' connections, and the cluster's background processes during the scenario's runs (autovacuum, the WAL writer, the checkpointer and background writer, shared by every scenario's database; ended: processes that ended during a run, what they used in it; other: the postmaster and the rest):",
    SERVER_KINDS,
    measured,
    (scenario) => SERVER_KINDS.map((kind) => perRequest(scenario, kind).toFixed(0)),
  );
}

// --- the run -------------------------------------------------------------------------

async function main() {
  const namedUrl = process.env.PERSONA_BENCH_POSTGRES_URL;
  const server = namedUrl === undefined ? await startPrivateCluster() : await namedServer(namedUrl);
  await server.admin.query("create extension if not exists pg_walinspect").catch(() => undefined);
  const withRedis = process.env.BENCH_DB_COST_REDIS !== "0" && (await redisAnswers(REDIS_URL));
  const created = [];
  const scenarios = [];
  try {
    const express = await startReference("express-server.mjs");
    const sqliteFile = path.join(directory, "db-cost.sqlite");
    const [sqliteCustomer] = await onboardMany(sqliteFile, 1);
    const sqliteService = await startService(sqliteFile);

    const plans = [
      { key: "a", name: "1 instance, 1 hot account", instances: 1, accounts: 1 },
      {
        key: "b",
        name: `1 instance, ${MANY_ACCOUNTS} accounts`,
        instances: 1,
        accounts: MANY_ACCOUNTS,
      },
      { key: "c", name: "2 instances, 1 hot account", instances: 2, accounts: 1 },
      {
        key: "d",
        name: `2 instances, ${MANY_ACCOUNTS} accounts`,
        instances: 2,
        accounts: MANY_ACCOUNTS,
      },
    ];
    if (withRedis) {
      plans.push(
        { ...plans[0], key: "a-redis", name: `${plans[0].name}, Redis`, redis: true },
        { ...plans[3], key: "d-redis", name: `${plans[3].name}, Redis`, redis: true },
      );
    }
    for (const plan of plans) {
      const database = `persona_dbcost_${plan.key.replace("-", "_")}_${randomBytes(4).toString("hex")}`;
      await server.admin.query(`CREATE DATABASE ${database}`);
      created.push(database);
      const url = new URL(server.url);
      url.pathname = `/${database}`;
      const customers = await onboardMany(url.toString(), plan.accounts);
      const instances = [];
      for (let index = 0; index < plan.instances; index += 1) {
        instances.push(
          await startService(url.toString(), {
            PERSONA_INSTANCE_ID: `bench-${plan.key}-${index + 1}`,
            ...(plan.redis ? { PERSONA_REDIS_URL: REDIS_URL } : {}),
          }),
        );
      }
      const client = await connectPostgres(url.toString());
      const [{ oid }] = (
        await client.query(
          "select oid::text as oid from pg_database where datname = current_database()",
        )
      ).rows;
      scenarios.push({
        ...plan,
        database,
        client,
        databaseOid: oid,
        customers,
        instances,
        runs: [],
        ticks: server.postmaster === undefined ? undefined : serverTicksZero(),
        instanceTicks: 0,
        walBytes: 0,
        walKinds: {},
        walTables: {},
        counters: {},
        latencyMs: 0,
        requests: 0,
      });
      process.stderr.write(`ready: ${plan.name}\n`);
    }
    const databases = scenarios.map((scenario) => scenario.database);
    const expressTarget = {
      name: "express 5 JSON route",
      urls: [`${express.url}/api/v1/generate`],
      body: sqliteCustomer.body,
      headers: {},
    };
    const sqlite = {
      name: "/generate, SQLite, 1 instance",
      instances: [sqliteService],
      customers: [sqliteCustomer],
      runs: [],
      counters: {},
      latencyMs: 0,
      instanceTicks: 0,
      requests: 0,
    };
    const expressRuns = [];
    let expressTicks = 0;

    // Warm-up (JIT, caches, pools), then the statistics of the warm-up flushed.
    await load(expressTarget, 2);
    await drive(sqlite, 2);
    for (const scenario of scenarios) await drive(scenario, 2);
    await sleep(FLUSH_WAIT_MS);
    const startTotals = await databaseTotals(server, databases);
    const startStatements = new Map();
    for (const scenario of scenarios) {
      startStatements.set(scenario.key, await statementsOf(scenario.instances));
    }

    for (let round = 0; round < rounds; round += 1) {
      const expressTicksBefore = instanceTicks([express]);
      const expressRun = await load(expressTarget, duration);
      expressTicks += instanceTicks([express]) - expressTicksBefore;
      expressRuns.push(expressRun);
      const sqliteBefore = await countersOf(sqlite.instances);
      const sqliteTicksBefore = instanceTicks(sqlite.instances);
      const sqliteRun = await drive(sqlite, duration);
      sqlite.instanceTicks += instanceTicks(sqlite.instances) - sqliteTicksBefore;
      addCounters(sqlite.counters, sqliteBefore, await countersOf(sqlite.instances));
      sqlite.latencyMs += sqliteRun.latencyMs * sqliteRun.requests;
      sqlite.requests += sqliteRun.requests;
      sqlite.runs.push(sqliteRun);
      for (const scenario of scenarios) {
        const countersBefore = await countersOf(scenario.instances);
        const lsnBefore = await walLsn(server);
        const ticksBefore = serverTicks(server, databases);
        const instanceTicksBefore = instanceTicks(scenario.instances);
        const run = await drive(scenario, duration);
        const ticksAfter = serverTicks(server, databases);
        scenario.instanceTicks += instanceTicks(scenario.instances) - instanceTicksBefore;
        const lsnAfter = await walLsn(server);
        const kinds = await walKindsBetween(server, lsnBefore, lsnAfter);
        if (kinds === undefined) scenario.walKindsMissing = true;
        for (const [kind, bytes] of Object.entries(kinds ?? {})) {
          scenario.walKinds[kind] = (scenario.walKinds[kind] ?? 0) + bytes;
        }
        const tables = await walTablesBetween(server, scenario, lsnBefore, lsnAfter);
        for (const [table, bytes] of Object.entries(tables ?? {})) {
          scenario.walTables[table] = (scenario.walTables[table] ?? 0) + bytes;
        }
        addCounters(scenario.counters, countersBefore, await countersOf(scenario.instances));
        scenario.latencyMs += run.latencyMs * run.requests;
        scenario.walBytes += await walBytesBetween(server, lsnBefore, lsnAfter);
        scenario.ticks = addServerTicks(
          scenario.ticks,
          serverTicksBetween(ticksBefore, ticksAfter),
        );
        scenario.requests += run.requests;
        scenario.runs.push(run);
        process.stderr.write(".");
      }
    }
    await sleep(FLUSH_WAIT_MS);
    const endTotals = await databaseTotals(server, databases);
    for (const scenario of scenarios) {
      const statementsBetweenRuns =
        (await statementsOf(scenario.instances)) -
        startStatements.get(scenario.key) -
        scenario.counters.statements;
      const start = startTotals.get(scenario.database);
      const end = endTotals.get(scenario.database);
      scenario.commits = end.transactions - start.transactions - statementsBetweenRuns;
      scenario.diskBytes = end.bytes - start.bytes;
    }

    // One instance on one hot account with more connections: is it bound by its cores or by latency?
    const sweep = [];
    const scenario = scenarios.find((each) => each.key === "a");
    for (const clients of [connections, connections * 2, connections * 4]) {
      const serverBefore = serverTicks(server, databases);
      const instanceBefore = instanceTicks(scenario.instances);
      const run = await drive(scenario, duration, clients);
      const serverAfter = serverTicks(server, databases);
      sweep.push({
        clients,
        rps: run.rps,
        latencyMs: run.latencyMs,
        instanceCpuUs:
          ((instanceTicks(scenario.instances) - instanceBefore) * 1e6) / CLOCK_TICKS / run.requests,
        serverCpuUs:
          serverBefore === undefined
            ? undefined
            : (totalTicks(serverTicksBetween(serverBefore, serverAfter)) * 1e6) /
              CLOCK_TICKS /
              run.requests,
      });
      process.stderr.write(".");
    }

    // Figures.
    const byKey = new Map(scenarios.map((scenario) => [scenario.key, scenario]));
    const total = (run) => run.instanceCpuUs + (run.serverCpuUs ?? 0);
    const perRequest = (scenario) => ({
      rps: median(scenario.runs.map((run) => run.rps)),
      cpuUs:
        scenario.ticks === undefined
          ? undefined
          : (totalTicks(scenario.ticks) * 1e6) / CLOCK_TICKS / scenario.requests,
      instanceCpuUs: (scenario.instanceTicks * 1e6) / CLOCK_TICKS / scenario.requests,
      commits: scenario.commits / scenario.requests,
      walBytes: scenario.walBytes / scenario.requests,
      statements: scenario.counters.statements / scenario.requests,
      diskBytes: scenario.diskBytes / scenario.requests,
    });
    const roundRatio = (top, bottom) =>
      median(top.runs.map((run, index) => run.rps / bottom[index].rps));
    const expressRps = median(expressRuns.map((run) => run.rps));
    const ratios = {
      twoOverOneHot: roundRatio(byKey.get("c"), byKey.get("a").runs),
      twoOverOneMany: roundRatio(byKey.get("d"), byKey.get("b").runs),
      oneOverExpress: roundRatio(byKey.get("a"), expressRuns),
      sqliteOverExpress: roundRatio(sqlite, expressRuns),
    };
    const fixed = (value, digits) => (value === undefined ? "n/a" : value.toFixed(digits));
    const atMost = (value, target, digits) =>
      value === undefined
        ? "n/a"
        : value <= target
          ? `met (${value.toFixed(digits)} ≤ ${target})`
          : `**missed** by ${(value - target).toFixed(digits)} (${((value / target - 1) * 100).toFixed(0)} % over)`;
    const atLeast = (value, target) =>
      value >= target
        ? `met (${value.toFixed(2)} ≥ ${target})`
        : `**missed** by ${(target - value).toFixed(2)} (${((1 - value / target) * 100).toFixed(0)} % short)`;

    const rows = scenarios.map((scenario) => {
      const figures = perRequest(scenario);
      return { scenario, figures };
    });
    const a = perRequest(byKey.get("a"));
    const lines = [
      "## The database's cost per /generate request (PostgreSQL, and statements on SQLite)",
      "",
      `- Machine: ${machineLine()}`,
      `- Command: \`npm run bench:db-cost -w api\` (api/bench/db-cost-bench.mjs; ${server.private ? `a private PostgreSQL cluster started from ${server.bin}, default settings: fsync and synchronous_commit on, shared_buffers 128 MB` : `PostgreSQL at ${server.url.replace(/\/\/[^@]*@/u, "//")}: backends of the benchmark's databases and background processes counted; WAL includes the server's other writes`}; autocannon, ${connections} connections split between the instances, ${rounds} interleaved rounds of ${duration} s per target after a 2 s warm-up; per-request figures summed over the rounds; requests/s the median round; ratios the median of per-round ratios)`,
      `- Date: ${new Date().toISOString().slice(0, 10)}`,
      "- Every request: /api/v1/generate, offline engine, billing and rate limits on, request logging on; each scenario on a database of its own; 100 accounts: one key and persona each, requests round robin.",
      "- Server CPU: utime + stime of every process of the cluster (/proc, CLK_TCK), over the runs. Commits: `xact_commit + xact_rollback` of the scenario's database (read after an 11 s pause: statistics flush late), minus the autocommit heartbeats between runs. WAL: `pg_current_wal_lsn()` before and after each run. Statements: `persona_storage_statements_total` of the instances. Database growth: `pg_database_size` at the end minus at the start (tables, indexes, dead rows not yet vacuumed), per request.",
      "",
      "| scenario | requests/s | server CPU µs/request | instance CPU µs/request | commits/request | WAL bytes/request | statements/request | database growth bytes/request |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      ...rows.map(
        ({ scenario, figures }) =>
          `| PostgreSQL, ${scenario.name} | ${figures.rps.toFixed(0)} | ${fixed(figures.cpuUs, 0)} | ${figures.instanceCpuUs.toFixed(0)} | ${figures.commits.toFixed(2)} | ${figures.walBytes.toFixed(0)} | ${figures.statements.toFixed(2)} | ${figures.diskBytes.toFixed(0)} |`,
      ),
      `| SQLite, 1 instance, 1 account | ${median(sqlite.runs.map((run) => run.rps)).toFixed(0)} | — | ${((sqlite.instanceTicks * 1e6) / CLOCK_TICKS / sqlite.requests).toFixed(0)} | — | — | ${(sqlite.counters.statements / sqlite.requests).toFixed(2)} | — |`,
      `| express 5 JSON route (no database) | ${expressRps.toFixed(0)} | — | ${((expressTicks * 1e6) / CLOCK_TICKS / expressRuns.reduce((sum, run) => sum + run.requests, 0)).toFixed(0)} | — | — | — | — |`,
      "",
      "Instance CPU: utime + stime of the service processes (every thread: the main thread, the SQLite writer and reader, libuv's pool), per request; for express, its process.",
      "",
      ...serverKindLines(rows),
      `Where a request's time goes (means over the rounds, ms): its latency at ${connections} connections (autocannon), and the time it waited for its admission and its settlement (\`persona_storage_write_duration_seconds\` of the instances: the group-commit queue, the round trip, the commit and, for settlements, the flush); the rest is the instance's own work and its wait for a core:`,
      "",
      "| scenario | latency ms | admission ms | settlement ms | rest ms |",
      "|---|---:|---:|---:|---:|",
      ...[
        ...rows.map(({ scenario }) => ({ name: `PostgreSQL, ${scenario.name}`, of: scenario })),
        { name: "SQLite, 1 instance, 1 account", of: sqlite },
      ].map(({ name, of }) => {
        const latency = of.latencyMs / of.requests;
        const admit = (of.counters.admitSeconds * 1000) / of.counters.admits;
        const settle = (of.counters.settleSeconds * 1000) / of.counters.settles;
        return `| ${name} | ${latency.toFixed(2)} | ${admit.toFixed(2)} | ${settle.toFixed(2)} | ${(latency - admit - settle).toFixed(2)} |`;
      }),
      "",
      `One instance on one hot account with more connections (one run of ${duration} s each, after the rounds): requests/s, mean latency, and CPU per request of the instance and of the server:`,
      "",
      "| connections | requests/s | latency ms | instance CPU µs/request | server CPU µs/request | both µs/request |",
      "|---:|---:|---:|---:|---:|---:|",
      ...sweep.map(
        (run) =>
          `| ${run.clients} | ${run.rps.toFixed(0)} | ${run.latencyMs.toFixed(2)} | ${run.instanceCpuUs.toFixed(0)} | ${fixed(run.serverCpuUs, 0)} | ${total(run).toFixed(0)} |`,
      ),
      "",
      ...walKindLines(rows),
      ...walTableLines(rows),
      "Targets:",
      "",
      ...rows.map(
        ({ scenario, figures }) =>
          `- ${scenario.name}: server CPU ≤ ${TARGETS.cpuUs} µs ${atMost(figures.cpuUs, TARGETS.cpuUs, 0)}; commits ≤ ${TARGETS.commits} ${atMost(figures.commits, TARGETS.commits, 2)}; WAL ≤ ${TARGETS.walBytes} bytes ${atMost(figures.walBytes, TARGETS.walBytes, 0)}`,
      ),
      `- Two instances ≥ ${TARGETS.twoOverOne} × one, 1 hot account: ${atLeast(ratios.twoOverOneHot, TARGETS.twoOverOne)}; ${MANY_ACCOUNTS} accounts: ${atLeast(ratios.twoOverOneMany, TARGETS.twoOverOne)}`,
      `- One instance on PostgreSQL ≥ ${TARGETS.overExpress} × the express route: ${atLeast(ratios.oneOverExpress, TARGETS.overExpress)} (SQLite: ${ratios.sqliteOverExpress.toFixed(2)} ×)`,
      "",
      `At these figures one PostgreSQL core settles about ${fixed(a.cpuUs === undefined ? undefined : 1e6 / a.cpuUs, 0)} requests/s of one instance on one account; docs/SCALING.md "Capacity model" turns them into a deployment.`,
    ];
    const section = lines.join("\n");
    writeSection(path.join(root, "docs/BENCHMARKS.md"), "db-cost", section);
    process.stdout.write(`\n${section}\n`);
  } finally {
    for (const scenario of scenarios) await scenario.client?.end().catch(() => undefined);
    for (const child of children) child.kill("SIGTERM");
    await sleep(500);
    if (!server.private) {
      for (const database of created) {
        await server.admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      }
    }
    await server.stop();
  }
}

try {
  await main();
} finally {
  cleanUp();
}
