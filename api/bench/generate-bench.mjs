// npm run bench: /api/v1/generate on the offline engine, with billing
// (reserve → settle, usage and balance ledgers) and rate limits on, on
// SQLite and on PostgreSQL, against a bare node:http JSON handler, in the
// same run, with autocannon. The bench key's limits are raised and its
// account funded so the measured requests are served, not refused.
// Targets: SQLite (issue "service core") ≥ 35 % of the bare handler's
// requests/s and p99 < 25 ms; PostgreSQL (issue "accounts, billing, rate
// limits") ≥ 25 % and p99 < 40 ms, at 10 connections.

import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { machineLine, writeSection } from "../../bench/results-file.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const duration = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const postgresAdminUrl =
  process.env.PERSONA_BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const adminScript = path.join(root, "api/dist/admin/cli.js");
const examplePersona = path.join(root, "api/personas/example-persona.json");

function startProcess(args, options, pattern) {
  const child = spawn(process.execPath, args, { ...options, stdio: ["ignore", "pipe", "inherit"] });
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
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

async function load(url, body, headers) {
  const options = {
    url,
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    connections,
  };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, caches, database pages
  const result = await autocannon({ ...options, duration });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  }
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

/** Runs persona-admin on a store; returns its standard output. */
function admin(databaseUrl, ...args) {
  const result = spawnSync(process.execPath, [adminScript, ...args], {
    env: { ...process.env, PERSONA_DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`persona-admin ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * Onboards a bench customer: an account with 1 000 000.00 USD, the example
 * persona, and a key whose limits are raised far above what the run sends.
 */
function onboard(databaseUrl, directory) {
  const accountId = admin(databaseUrl, "account", "create", "Bench account");
  admin(databaseUrl, "account", "topup", accountId, "1000000");
  const personaId = admin(
    databaseUrl,
    "persona",
    "create",
    "--account",
    accountId,
    "--file",
    examplePersona,
  );
  const keyFile = path.join(directory, `bench-key-${randomBytes(4).toString("hex")}.txt`);
  admin(databaseUrl, "key", "create", "--account", accountId, "--name", "bench", "--out", keyFile);
  const [key] = JSON.parse(admin(databaseUrl, "key", "list", "--account", accountId));
  const limit = "100000000";
  admin(
    databaseUrl,
    "limits",
    "set",
    "--key",
    key.id,
    "--minute",
    limit,
    "--hour",
    limit,
    "--day",
    limit,
  );
  return { accountId, personaId, apiKey: fs.readFileSync(keyFile, "utf8").trim() };
}

async function measureService(databaseUrl, directory) {
  const customer = onboard(databaseUrl, directory);
  const service = await startProcess(
    [path.join(root, "api/dist/main.js")],
    // Request logging stays on (level info), as in production; stdout is drained.
    {
      cwd: directory,
      env: {
        ...process.env,
        PERSONA_PORT: "0",
        PERSONA_DATABASE_URL: databaseUrl,
        PERSONA_SEED_DEMO: "false",
      },
    },
    /"url":"(http:\/\/[^"]+)"[^\n]*listening/u,
  );
  const body = JSON.stringify({
    personaId: customer.personaId,
    messages: [
      { role: "system", content: "The user is planning a balcony garden." },
      { role: "user", content: "Hi! Which herbs grow well in pots on a sunny balcony?" },
    ],
  });
  try {
    const figures = await load(`${service.url}/api/v1/generate`, body, {
      "x-api-key": customer.apiKey,
    });
    // The ledger must still add up after the load.
    const account = JSON.parse(admin(databaseUrl, "account", "show", customer.accountId));
    if (account.balanceMicros !== account.ledgerSumMicros || account.reservedMicros !== 0) {
      throw new Error(`ledger out of balance after the run: ${JSON.stringify(account)}`);
    }
    return { ...figures, charged: 1_000_000_000_000 - account.balanceMicros };
  } finally {
    service.child.kill("SIGTERM");
  }
}

async function withPostgresDatabase(run) {
  const name = `persona_bench_${randomBytes(6).toString("hex")}`;
  const adminClient = new pg.Client({ connectionString: postgresAdminUrl });
  try {
    await adminClient.connect();
  } catch (error) {
    return { skipped: `PostgreSQL unreachable at ${postgresAdminUrl} (${error.message})` };
  }
  await adminClient.query(`CREATE DATABASE ${name}`);
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    await adminClient.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await adminClient.end();
  }
}

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-bench-"));
const bare = await startProcess(
  [path.join(here, "bare-server.mjs")],
  {},
  /"url":"(http:\/\/[^"]+)"/u,
);
try {
  const baseline = await load(
    bare.url,
    JSON.stringify({ messages: [{ role: "user", content: "Hi!" }] }),
    {},
  );
  const sqlite = await measureService(path.join(directory, "bench.sqlite"), directory);
  const postgres = await withPostgresDatabase((url) => measureService(url, directory));
  const verdict = (ok) => (ok ? "met" : "**missed**");
  const row = (label, figures) =>
    `| ${label} | ${figures.rps.toFixed(0)} | ${figures.p50} | ${figures.p99} | ${figures.total} | ${(
      (figures.rps / baseline.rps) * 100
    ).toFixed(1)} % |`;
  const lines = [
    "## /api/v1/generate with billing and rate limits vs bare node:http (offline engine)",
    "",
    `- Machine: ${machineLine()}`,
    `- Command: \`npm run bench\` (autocannon, ${connections} connections, ${duration} s after a 2 s warm-up; each server in its own process; request logging on)`,
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
    "- Every measured request authenticates its key, consumes its rate-limit windows, reserves the price, runs the offline engine and settles (usage row, ledger entry, balance) before answering; the bench key's limits are raised so none is refused. After each run the ledger is checked to sum to the balance with no reservation left.",
    "",
    "| target | requests/s | p50 ms | p99 ms | requests | ÷ bare |",
    "|---|---:|---:|---:|---:|---:|",
    `| bare node:http JSON handler | ${baseline.rps.toFixed(0)} | ${baseline.p50} | ${baseline.p99} | ${baseline.total} | 100 % |`,
    row("POST /api/v1/generate, SQLite", sqlite),
    "skipped" in postgres
      ? `| POST /api/v1/generate, PostgreSQL | skipped: ${postgres.skipped} | | | | |`
      : row("POST /api/v1/generate, PostgreSQL", postgres),
    "",
    `SQLite: ${((sqlite.rps / baseline.rps) * 100).toFixed(1)} % of bare (target ≥ 35 %: ${verdict(
      sqlite.rps / baseline.rps >= 0.35,
    )}); p99 ${sqlite.p99} ms (target < 25 ms: ${verdict(sqlite.p99 < 25)}).`,
  ];
  if (!("skipped" in postgres)) {
    lines.push(
      "",
      `PostgreSQL: ${((postgres.rps / baseline.rps) * 100).toFixed(1)} % of bare (target ≥ 25 %: ${verdict(
        postgres.rps / baseline.rps >= 0.25,
      )}); p99 ${postgres.p99} ms (target < 40 ms: ${verdict(postgres.p99 < 40)}).`,
    );
  }
  const section = lines.join("\n");
  writeSection(path.join(root, "docs/BENCHMARKS.md"), "generate", section);
  process.stdout.write(`${section}\n`);
} finally {
  bare.child.kill("SIGTERM");
  fs.rmSync(directory, { recursive: true, force: true });
}
