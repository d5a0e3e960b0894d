// A PostgreSQL cluster of one test or benchmark's own, started from the
// installed server binaries: for what must not touch the shared server —
// its CPU time and WAL measured alone (api/bench/db-cost-bench.mjs), or a
// crash of the whole server and its recovery (api/test/unlogged-holds.test.ts).
// Plain JavaScript so that the benchmarks (run by node) and the tests (run
// by vitest) share it; its types are in private-postgres.d.mts.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";

const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** The folder of the newest installed server binaries with `initdb` (pg_config --bindir, else /usr/lib/postgresql/N/bin), or undefined. */
export function postgresServerBinaries() {
  const configured = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const candidates = [];
  if (configured.status === 0) candidates.push(configured.stdout.trim());
  const installed = "/usr/lib/postgresql";
  if (fs.existsSync(installed)) {
    for (const version of fs.readdirSync(installed).sort((a, b) => Number(b) - Number(a))) {
      candidates.push(path.join(installed, version, "bin"));
    }
  }
  return candidates.find((bin) => fs.existsSync(path.join(bin, "initdb")));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Connects to `url`, trying `attempts` times 100 ms apart (a server starting or recovering). */
export async function connectPostgres(url, attempts = 1) {
  for (let attempt = 1; ; attempt += 1) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return client;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await sleep(100);
    }
  }
}

/**
 * Starts a cluster in `directory/postgres` with the server's default
 * settings, trust authentication for `postgres` on 127.0.0.1 and a free
 * port (run as the `postgres` user when this process runs as root).
 *
 * @throws when no server binaries are installed, initdb fails or the server does not answer within 15 s
 */
export async function startPrivatePostgres(directory) {
  const bin = postgresServerBinaries();
  if (bin === undefined) throw new Error("no PostgreSQL server binaries (initdb) found");
  const data = path.join(directory, "postgres");
  fs.mkdirSync(data, { mode: 0o700 });
  let owner = {};
  if (process.getuid?.() === 0) {
    const id = (flag) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout);
    owner = { uid: id("-u"), gid: id("-g") };
    fs.chmodSync(directory, 0o755);
    fs.chownSync(data, owner.uid, owner.gid);
  }
  const initdb = spawnSync(
    path.join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"],
    { ...owner, encoding: "utf8" },
  );
  if (initdb.status !== 0) throw new Error(`initdb: ${initdb.stderr}`);
  const port = await freePort();
  const server = spawn(
    path.join(bin, "postgres"),
    ["-D", data, "-p", String(port), "-k", data, "-c", "listen_addresses=127.0.0.1"],
    { ...owner, stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  server.stderr.on("data", (chunk) => {
    if (log.length < 20_000) log += chunk;
  });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const cluster = { url, admin: undefined, postmaster: server.pid, bin };
  try {
    cluster.admin = await connectPostgres(url, 150);
  } catch (error) {
    server.kill("SIGINT");
    throw new Error(`the private PostgreSQL did not start: ${error.message}\n${log}`);
  }
  /** The URL of database `name` on this cluster. */
  cluster.databaseUrl = (name) => {
    const database = new URL(url);
    database.pathname = `/${name}`;
    return database.toString();
  };
  /**
   * Crashes the server as a power cut would look to it: one backend killed
   * with SIGKILL makes the postmaster end every process and run crash
   * recovery (unlogged tables come back empty). Resolves once it answers again.
   */
  cluster.crash = async () => {
    const victim = await connectPostgres(url);
    const [row] = (await victim.query("select pg_backend_pid() as pid")).rows;
    process.kill(Number(row.pid), "SIGKILL");
    await victim.end().catch(() => undefined);
    await cluster.admin.end().catch(() => undefined);
    await sleep(200);
    cluster.admin = await connectPostgres(url, 150);
  };
  /** Stops the server (fast shutdown), waiting 10 s at most. */
  cluster.stop = async () => {
    await cluster.admin.end().catch(() => undefined);
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGINT");
    await Promise.race([exited, sleep(10_000)]);
  };
  return cluster;
}
