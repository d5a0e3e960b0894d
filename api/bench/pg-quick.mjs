// Quick A/B of the database's cost per request on PostgreSQL (issue 27), not part
// of `npm run bench` (api/bench/db-cost-bench.mjs is): each build named in DISTS
// (folders under api/, e.g. a copy of api/dist made before a change: `dist-base,dist`)
// gets a fresh database onboarded by its own migrations and two instances; rounds
// interleave builds and 1 vs 2 instances (SECONDS each, 10 connections, ACCOUNTS
// accounts picked at random per request). Per request: PostgreSQL server CPU (every
// process of the server at PG_URL, exited ones included: use a server of your own),
// commits (pg_stat_database) and WAL bytes (pg_current_wal_lsn). PROFILE=<rate>
// instead lists statements per request at that fixed rate (pg_stat_statements must
// be preloaded). SERVICE_ENV: JSON of extra service settings. Run it under
// `flock /tmp/bench.lock`.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { children, cleanUp, directory, generateBody, startProcess } from "./bench-support.mjs";

const adminUrl = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5499/postgres";
const accounts = Number(process.env.ACCOUNTS ?? 1);
const rounds = Number(process.env.ROUNDS ?? 2);
const seconds = Number(process.env.SECONDS ?? 10);
const connections = 10;
const warmup = Number(process.env.WARMUP ?? 2);
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
const example = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, "../personas/example-persona.json"), "utf8"),
);
const extra = JSON.parse(process.env.SERVICE_ENV ?? "{}");

/** A fresh database onboarded by the build in `dist` (its migrations), and two instances of it. */
async function prepare(dist) {
  const name = `pgq_${randomBytes(5).toString("hex")}`;
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  // Onboard in process (100 accounts by child processes would take minutes).
  process.env.PERSONA_DATABASE_URL = databaseUrl;
  process.env.PERSONA_ENV_FILE = path.join(directory, "bench.env");
  process.env.PERSONA_SEED_DEMO = "false";
  const { loadConfig } = await import(`${dist}/config/config.js`);
  const { createLogger } = await import(`${dist}/logging/logger.js`);
  const { createServices } = await import(`${dist}/create-services.js`);
  const { createAdminProgram } = await import(`${dist}/admin/admin-program.js`);
  const services = await createServices(loadConfig(), createLogger("silent"), { tracing: false });
  const run = async (...args) => {
    const out = [];
    const program = createAdminProgram(services, {
      out: (t) => out.push(t),
      error: (t) => out.push(t),
    });
    await program.parseAsync(args, { from: "user" });
    return out.join("\n").trim();
  };
  const customers = [];
  for (let index = 0; index < accounts; index += 1) {
    const accountId = await run("account", "create", `Bench ${index}`);
    await run("account", "topup", accountId, "1000000");
    const file = path.join(directory, `${name}-p${index}.json`);
    fs.writeFileSync(
      file,
      JSON.stringify({ ...example, route: [{ upstream: "offline", model: "offline-composer-1" }] }),
    );
    const personaId = await run("persona", "create", "--account", accountId, "--file", file);
    const keyFile = path.join(directory, `${name}-k${index}.txt`);
    await run("key", "create", "--account", accountId, "--name", "bench", "--out", keyFile);
    const [key] = JSON.parse(await run("key", "list", "--account", accountId));
    await run(
      "limits",
      "set",
      "--key",
      key.id,
      "--minute",
      "100000000",
      "--hour",
      "100000000",
      "--day",
      "100000000",
    );
    customers.push({
      body: generateBody(personaId),
      apiKey: fs.readFileSync(keyFile, "utf8").trim(),
    });
  }
  await services.billing.close();
  await services.database.destroy();
  const start = (instance) =>
    startProcess(
      [`${dist}/main.js`],
      {
        cwd: directory,
        env: {
          ...process.env,
          PERSONA_PORT: "0",
          PERSONA_DATABASE_URL: databaseUrl,
          PERSONA_INSTANCE_ID: instance,
          PERSONA_LOG_LEVEL: "info",
          ...extra,
        },
      },
      /"url":"(http:\/\/[^"]+)"[^\n]*listening/u,
    );
  const first = await start(`${path.basename(dist)}-a`);
  const second = await start(`${path.basename(dist)}-b`);
  return { dist: path.basename(dist), name, customers, first, second };
}

const dataDirectory = (await admin.query("show data_directory")).rows[0].data_directory;
const postmaster = Number(
  fs.readFileSync(path.join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0],
);
/** CPU of the server: live postgres processes, plus what exited ones used (the postmaster's cutime/cstime). */
function serverCpuMs() {
  let ticks = 0;
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/u.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pid) === postmaster) {
        ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      } else if (Number(fields[1]) === postmaster) {
        ticks += Number(fields[11]) + Number(fields[12]);
      }
    } catch {}
  }
  return ticks * 10;
}
async function dbCounters(name) {
  await admin.query("select pg_stat_force_next_flush()");
  const { rows } = await admin.query(
    "select (select sum(xact_commit + xact_rollback) from pg_stat_database where datname = $1) x, pg_current_wal_lsn() lsn",
    [name],
  );
  return { xacts: Number(rows[0].x), lsn: rows[0].lsn, cpu: serverCpuMs() };
}

async function load(variant, urls, duration) {
  const { customers } = variant;
  const share = connections / urls.length;
  const runs = await Promise.all(
    urls.map((target) =>
      autocannon({
        url: `${target}/api/v1/generate`,
        method: "POST",
        connections: share,
        duration,
        requests: [
          {
            setupRequest: (request) => {
              const customer = customers[Math.floor(Math.random() * customers.length)];
              return {
                ...request,
                headers: { "content-type": "application/json", "x-api-key": customer.apiKey },
                body: customer.body,
              };
            },
          },
        ],
      }),
    ),
  );
  const failed = runs.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0);
  return {
    requests: runs.reduce((sum, r) => sum + r.requests.total, 0),
    rps: runs.reduce((sum, r) => sum + r.requests.average, 0),
    failed,
  };
}

async function measure(variant, label, urls) {
  const before = await dbCounters(variant.name);
  const result = await load(variant, urls, seconds);
  // Let the last commits reach the statistics.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const after = await dbCounters(variant.name);
  const wal = Number(
    (await admin.query("select pg_wal_lsn_diff($1, $2) d", [after.lsn, before.lsn])).rows[0].d,
  );
  const n = result.requests;
  const line = {
    variant: variant.dist,
    label,
    accounts,
    rps: Math.round(result.rps),
    failed: result.failed,
    cpuUs: Math.round(((after.cpu - before.cpu) * 1000) / n),
    commits: +((after.xacts - before.xacts - 2) / n).toFixed(3),
    walBytes: Math.round(wal / n),
  };
  console.log(JSON.stringify(line));
  return line;
}

/** Statements per request at a low fixed rate (pg_stat_statements: calls, time, WAL bytes). */
async function profile(variant) {
  const url = new URL(adminUrl);
  url.pathname = `/${variant.name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query("create extension if not exists pg_stat_statements");
  await client.query("select pg_stat_statements_reset()");
  const run = await autocannon({
    url: `${variant.first.url}/api/v1/generate`,
    method: "POST",
    connections: 4,
    duration: 3,
    overallRate: Number(process.env.PROFILE),
    headers: { "content-type": "application/json", "x-api-key": variant.customers[0].apiKey },
    body: variant.customers[0].body,
  });
  const n = run.requests.total;
  const { rows } = await client.query(
    `select calls, round(total_exec_time::numeric * 1000 / $1) as us_per_req, round(total_plan_time::numeric * 1000 / $1) as plan_us, round(wal_bytes / $1) as wal_per_req,
       round(wal_fpi::numeric / $1, 3) as fpi_per_req, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 110) as query
     from pg_stat_statements where dbid = (select oid from pg_database where datname = $2)
     order by wal_bytes desc, total_exec_time desc limit 25`,
    [n, variant.name],
  );
  console.log(variant.dist, "requests", n);
  console.table(rows);
  await client.end();
}

const variants = [];
try {
  for (const dist of (process.env.DISTS ?? "dist").split(",")) {
    variants.push(await prepare(path.resolve(import.meta.dirname, "..", dist)));
  }
  for (const variant of variants) {
    await load(variant, [variant.first.url], warmup);
    await load(variant, [variant.first.url, variant.second.url], warmup);
  }
  if (process.env.PROFILE !== undefined) {
    for (const variant of variants) await profile(variant);
  }
  const lines = [];
  for (let round = 0; round < (process.env.PROFILE === undefined ? rounds : 0); round += 1) {
    for (const variant of variants) {
      lines.push(await measure(variant, "1 instance", [variant.first.url]));
      lines.push(await measure(variant, "2 instances", [variant.first.url, variant.second.url]));
    }
  }
  for (const variant of variants) {
    const mine = lines.filter((l) => l.variant === variant.dist);
    const sum = (label) => mine.filter((l) => l.label === label).reduce((s, l) => s + l.rps, 0);
    console.log(
      JSON.stringify({
        variant: variant.dist,
        twoOverOne: +(sum("2 instances") / sum("1 instance")).toFixed(2),
      }),
    );
  }
} finally {
  for (const child of children) child.kill("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const variant of variants)
    await admin.query(`drop database if exists ${variant.name} with (force)`);
  await admin.end();
  cleanUp();
}
