// Shared by the benchmarks of the service (generate-bench.mjs, tracing-bench.mjs,
// retention-bench.mjs): child processes (references and the built service),
// onboarding through persona-admin, autocannon loads, per-thread CPU time and
// throwaway PostgreSQL databases. Every process
// started here is in `children`; `cleanUp` stops them and removes the
// temporary folder.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../..");
export const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
export const duration = Number(process.env.BENCH_DURATION_SECONDS ?? 5);
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const fixedRate = 200;
const adminScript = path.join(root, "api/dist/admin/cli.js");
const mainScript = path.join(root, "api/dist/main.js");
const examplePersona = JSON.parse(
  fs.readFileSync(path.join(root, "api/personas/example-persona.json"), "utf8"),
);
export const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-bench-"));
export const children = [];
/** The PostgreSQL server the benchmarks make their throwaway databases on (`PERSONA_BENCH_POSTGRES_URL`). */
export const postgresAdminUrl =
  process.env.PERSONA_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Stops every child process and removes the temporary folder. */
export function cleanUp() {
  for (const child of children) child.kill("SIGTERM");
  fs.rmSync(directory, { recursive: true, force: true });
}

export function startProcess(args, options, pattern) {
  const child = spawn(process.execPath, args, { ...options, stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = "";
    let started = false;
    child.stdout.on("data", (data) => {
      if (started) return; // keep draining the pipe, stop buffering
      output += data;
      const match = pattern.exec(output);
      if (match) {
        started = true;
        resolve({ child, url: match[1] });
      }
    });
    child.once("exit", (code) => {
      if (!started) reject(new Error(`${args[0]} exited with ${code}: ${output}`));
    });
  });
}

export const startReference = (script, extraArgs = []) =>
  startProcess([path.join(here, script), ...extraArgs], {}, /"url":"(http:\/\/[^"]+)"/u);

/** Runs `persona-admin` on `databaseUrl`, with the service's upstream configuration in `environment`. */
export function admin(databaseUrl, environment, ...args) {
  const result = spawnSync(process.execPath, [adminScript, ...args], {
    env: { ...process.env, ...environment, PERSONA_DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`persona-admin ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * An account with 1 000 000.00 USD, a persona on `route` (upstreams named as
 * `environment` configures them), and a key whose limits are far above the run.
 */
export function onboard(databaseUrl, route, environment = {}) {
  const run = (...args) => admin(databaseUrl, environment, ...args);
  const accountId = run("account", "create", "Bench account");
  run("account", "topup", accountId, "1000000");
  const personaFile = path.join(directory, `persona-${randomBytes(4).toString("hex")}.json`);
  fs.writeFileSync(personaFile, JSON.stringify({ ...examplePersona, route }));
  const personaId = run("persona", "create", "--account", accountId, "--file", personaFile);
  const keyFile = path.join(directory, `key-${randomBytes(4).toString("hex")}.txt`);
  run("key", "create", "--account", accountId, "--name", "bench", "--out", keyFile);
  const [key] = JSON.parse(run("key", "list", "--account", accountId));
  const limit = "100000000";
  run("limits", "set", "--key", key.id, "--minute", limit, "--hour", limit, "--day", limit);
  return { accountId, personaId, apiKey: fs.readFileSync(keyFile, "utf8").trim() };
}

export function startService(databaseUrl, environment = {}) {
  return startProcess(
    [mainScript],
    {
      cwd: directory,
      env: {
        ...process.env,
        PERSONA_PORT: "0",
        PERSONA_DATABASE_URL: databaseUrl,
        PERSONA_SEED_DEMO: "false",
        PERSONA_ENV_FILE: path.join(directory, "bench.env"),
        // Request logging stays on (level info), as in production; stdout is drained.
        PERSONA_LOG_LEVEL: "info",
        ...environment,
      },
    },
    /"url":"(http:\/\/[^"]+)"[^\n]*listening/u,
  );
}

/**
 * Loads one target: one or several URLs (the connections split between them),
 * for `seconds`, at full speed or at `rate` requests/s overall.
 */
export async function load(target, seconds, rate) {
  const share = Math.max(1, Math.floor(connections / target.urls.length));
  const runs = await Promise.all(
    target.urls.map((url) =>
      autocannon({
        url,
        method: "POST",
        headers: { "content-type": "application/json", ...target.headers },
        body: target.body,
        connections: share,
        duration: seconds,
        ...(rate === undefined ? {} : { overallRate: Math.ceil(rate / target.urls.length) }),
      }),
    ),
  );
  const failed = runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0);
  if (failed > 0) throw new Error(`${target.name}: ${failed} failed requests`);
  return {
    rps: runs.reduce((sum, run) => sum + run.requests.average, 0),
    requests: runs.reduce((sum, run) => sum + run["2xx"], 0),
    p50: Math.max(...runs.map((run) => run.latency.p50)),
    p99: Math.max(...runs.map((run) => run.latency.p99)),
  };
}

/** CPU milliseconds used so far by each thread of a process (from /proc). */
export function threadCpu(pid) {
  const ticks = 1000 / 100; // USER_HZ
  const usage = new Map();
  for (const thread of fs.readdirSync(`/proc/${pid}/task`)) {
    const stat = fs.readFileSync(`/proc/${pid}/task/${thread}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    usage.set(Number(thread), (Number(fields[11]) + Number(fields[12])) * ticks);
  }
  return usage;
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export const generateBody = (personaId) =>
  JSON.stringify({
    personaId,
    messages: [{ role: "user", content: "Hi! Which herbs grow well on a balcony?" }],
  });

/**
 * Sends `target`'s request at a fixed `rate` per second for `seconds`, open
 * loop (each request leaves at its time whether or not earlier ones were
 * answered, on keep-alive sockets, as many as needed — a slow answer never
 * holds back the next request), and times each from its send to the end of
 * its response, with a finer resolution than autocannon's whole
 * milliseconds.
 *
 * @returns latency percentiles in ms (p50, p90, p99, max) and the count
 */
export async function pacedLoad(target, seconds, rate) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(seconds * rate);
  const interval = 1000 / rate;
  const latencies = [];
  let failed = 0;
  /** Failures by status (or `error`), for the message when a run fails. */
  const failures = new Map();
  const fail = (why) => {
    failed += 1;
    failures.set(why, (failures.get(why) ?? 0) + 1);
  };
  const start = performance.now();
  const pending = [];
  const send = (sentAt) =>
    new Promise((resolve) => {
      const url = new URL(target.urls[latencies.length % target.urls.length]);
      const request = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { "content-type": "application/json", ...target.headers },
        },
        (response) => {
          response.on("data", () => undefined);
          response.on("end", () => {
            if (response.statusCode !== 200) fail(String(response.statusCode));
            latencies.push(performance.now() - sentAt);
            resolve();
          });
        },
      );
      request.on("error", (error) => {
        fail(error.code ?? "error");
        resolve();
      });
      request.end(target.body);
    });
  for (let index = 0; index < total; index += 1) {
    const wait = start + index * interval - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(performance.now()));
  }
  await Promise.all(pending);
  agent.destroy();
  if (failed > 0) {
    const by = [...failures].map(([why, count]) => `${count} × ${why}`).join(", ");
    throw new Error(`${target.name}: ${failed} failed requests (${by})`);
  }
  latencies.sort((a, b) => a - b);
  const at = (share) =>
    latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))];
  return { count: latencies.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) };
}

/**
 * Runs `run(url)` on a new, empty PostgreSQL database made on
 * `postgresAdminUrl`, and drops it afterwards, once every child process
 * (which may still hold connections to it) has been stopped. When the
 * server cannot be reached, runs `run(undefined, reason)` instead.
 */
export async function withPostgres(run) {
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
    if (children.length > 0) {
      for (const child of children) child.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.end();
  }
}

/** The Prometheus text of a service's `/metrics` (loopback: no token needed), next to `url`. */
export async function scrapeMetrics(url) {
  const response = await fetch(new URL("/metrics", url));
  if (!response.ok) throw new Error(`GET /metrics: ${response.status}`);
  return response.text();
}

/** Label pairs of a Prometheus sample line, e.g. `{ le: "0.005", operation: "settle" }`. */
function labelsOf(line) {
  const text = /\{(.*)\}/u.exec(line)?.[1] ?? "";
  return Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/gu)].map((m) => [m[1], m[2]]));
}

/** One sample's value (0 when absent). */
export function metricValue(text, name, labels = {}) {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const found = labelsOf(line);
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) {
      return Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return 0;
}

/**
 * What a Prometheus histogram recorded between two scrapes: `count`, and
 * `bound(q)`, the upper bound in ms of the bucket holding quantile `q`
 * (`bound(1)`: the slowest observation's bucket; Infinity past the last).
 */
export function histogramBetween(before, after, name, labels) {
  const buckets = new Map();
  for (const line of after.split("\n")) {
    if (!line.startsWith(`${name}_bucket{`)) continue;
    const found = labelsOf(line);
    if (!Object.entries(labels).every(([key, value]) => found[key] === value)) continue;
    const le = found.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(found.le);
    const previous = metricValue(before, `${name}_bucket`, { ...labels, le: found.le });
    buckets.set(le, Number(line.slice(line.lastIndexOf(" ") + 1)) - previous);
  }
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const count = sorted.at(-1)?.[1] ?? 0;
  return {
    count,
    bound(q) {
      if (count === 0) return Number.NaN;
      const bucket = sorted.find(([, cumulative]) => cumulative >= q * count);
      return bucket === undefined ? Number.NaN : bucket[0] * 1000;
    },
  };
}
