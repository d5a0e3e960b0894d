import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnvironment, scratchDirectory } from "../../test-support/isolated-process.js";
import {
  ADMIN_SCRIPT,
  type ApiFixture,
  MAIN_SCRIPT,
  spawnService,
  startApi,
} from "../../test-support/spawn-service.js";
import type { Services } from "../src/services.js";
import {
  holdSqlite,
  ledgerProblems,
  liftRateLimits,
  metricValue,
  runLoad,
} from "./support/load.js";
import { closeStore, openStore } from "./support/test-store.js";

// The embedded database as an operator meets it: a real service
// process on a real SQLite file, under load, while the file is locked by
// another process, fills its disk, disappears, or was damaged before start.
// Every case checks the answers, the event loop, that the process lives, and
// that the ledger matches what the clients saw.

/** The demo account's opening balance (api/src/seed/demo-seed.ts): 100.00 USD. */
const DEMO_BALANCE_MICROS = 100_000_000;

function databaseOf(fixture: ApiFixture): string {
  return path.join(fixture.directory, "data", "persona-reply.sqlite");
}

async function healthLatencies(baseUrl: string, untilMs: number): Promise<number[]> {
  const latencies: number[] = [];
  while (Date.now() < untilMs) {
    const started = Date.now();
    const response = await fetch(`${baseUrl}/healthz`);
    await response.text();
    expect(response.status).toBe(200);
    latencies.push(Date.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return latencies;
}

function alive(fixture: ApiFixture): boolean {
  try {
    process.kill(fixture.pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the embedded database under faults (SQLite, a real process)", () => {
  let fixture: ApiFixture | undefined;
  let store: Services | undefined;
  afterEach(async () => {
    await closeStore(store);
    store = undefined;
    await fixture?.stop();
    fixture = undefined;
  });

  it("keeps serving while another process holds the write lock for 3 s: /healthz at once, writes wait or get 503, the ledger matches", async () => {
    fixture = await startApi();
    liftRateLimits(fixture);
    const file = databaseOf(fixture);
    await metricValue(fixture.baseUrl, "nodejs_eventloop_lag_max_seconds"); // resets the window
    const load = runLoad({
      baseUrl: fixture.baseUrl,
      apiKey: fixture.apiKey,
      personaId: fixture.personaId,
      concurrency: 10,
      durationMs: 6_000,
      prefix: "locked",
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const holder = holdSqlite(file, "immediate", 3_000);
    await holder.started;
    const heldFrom = Date.now();
    const health = await healthLatencies(fixture.baseUrl, heldFrom + 2_800);
    await holder.done;
    const results = await load;

    // Liveness answered throughout the 3 s hold, and the event loop never waited for
    // the lock (a synchronous wait shows as a lag of seconds; a busy machine, as a
    // few hundred milliseconds at most).
    expect(Math.max(...health)).toBeLessThan(1_000);
    expect(await metricValue(fixture.baseUrl, "nodejs_eventloop_lag_max_seconds")).toBeLessThan(1);
    // Every request was answered: 200, or 503 with Retry-After in /generate's plain text.
    const unexpected = results
      .filter((result) => result.status !== 200 && result.status !== 503)
      .map(
        (result) => `${result.status} after ${result.elapsedMs} ms: ${result.body.slice(0, 200)}`,
      );
    expect(unexpected).toEqual([]);
    const refused = results.filter((result) => result.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused) {
      expect(result.retryAfter).toMatch(/^\d+$/u);
      expect(result.contentType).toMatch(/^text\/plain/u);
      expect(result.body).toMatch(/temporarily unavailable.*write lock/u);
    }
    // Requests that arrived during the hold and got the lock within their deadline were served.
    const servedDuringHold = results.filter(
      (result) =>
        result.status === 200 && result.startedAt > heldFrom && result.startedAt < heldFrom + 2_500,
    );
    expect(servedDuringHold.length).toBeGreaterThan(0);
    expect(alive(fixture)).toBe(true);

    store = await openStore(file);
    expect(await ledgerProblems(store, fixture.accountId, results, DEMO_BALANCE_MICROS)).toEqual(
      [],
    );
    expect(await store.billing.balances.openReservations(fixture.accountId)).toBe(0);
  });

  it("answers 503 when the file it writes is deleted, says so in /readyz and the log, and refuses to start on the loss", async () => {
    fixture = await startApi();
    liftRateLimits(fixture);
    const file = databaseOf(fixture);
    // A second name for the file, to read afterwards what was written into it.
    const kept = path.join(fixture.directory, "kept.sqlite");
    fs.linkSync(file, kept);
    const load = runLoad({
      baseUrl: fixture.baseUrl,
      apiKey: fixture.apiKey,
      personaId: fixture.personaId,
      concurrency: 10,
      durationMs: 3_000,
      prefix: "unlinked",
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    fs.unlinkSync(file);
    const results = await load;
    const ready = await fetch(`${fixture.baseUrl}/readyz`);
    const readiness = (await ready.json()) as { checks: { database: { detail?: string } } };
    expect(ready.status).toBe(503);
    expect(readiness.checks.database.detail).toMatch(/deleted or replaced/u);
    expect(alive(fixture)).toBe(true);
    // Some requests were served before the loss was noticed, and from then on 503.
    expect(results.some((result) => result.status === 200)).toBe(true);
    const last = results.slice(-10);
    expect(last.every((result) => result.status === 503)).toBe(true);
    expect(fixture.output()).toMatch(/deleted or replaced while in use[^\n]*restore the file/u);

    // Every 200 the clients saw is in the file that was deleted.
    const served = results.filter((result) => result.status === 200).map((r) => r.requestId);
    fs.copyFileSync(`${file}-wal`, `${kept}-wal`);
    const database = new SqliteDatabase(kept);
    const rows = database
      .prepare(
        `select request_id from usage_records where status = 200 and request_id in (${served.map(() => "?").join(", ")})`,
      )
      .all(...served) as Array<{ request_id: string }>;
    database.close();
    expect(rows.length).toBe(served.length);

    // A restart does not silently create an empty database in its place.
    const restart = spawnSync(process.execPath, [MAIN_SCRIPT], {
      cwd: fixture.directory,
      env: isolatedEnvironment({ PERSONA_PORT: "0" }),
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(restart.status).toBe(78);
    expect(restart.stderr).toMatch(/does not exist, but .* show.* that one existed/u);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("keeps the write-ahead log bounded: it grows behind a long reader and shrinks back after it", async () => {
    fixture = await startApi({ PERSONA_SQLITE_WAL_LIMIT_BYTES: String(1024 * 1024) });
    liftRateLimits(fixture);
    const file = databaseOf(fixture);
    const reader = holdSqlite(file, "deferred", 4_000);
    await reader.started;
    await runLoad({
      baseUrl: fixture.baseUrl,
      apiKey: fixture.apiKey,
      personaId: fixture.personaId,
      concurrency: 10,
      durationMs: 3_000,
      prefix: "wal",
    });
    const grown = fs.statSync(`${file}-wal`).size;
    expect(grown).toBeGreaterThan(1024 * 1024);
    await reader.done;
    const deadline = Date.now() + 30_000;
    let size = grown;
    while (Date.now() < deadline && size > 0) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      size = fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0;
    }
    expect(size).toBeLessThanOrEqual(1024 * 1024);
    // The gauge follows the file within a few maintenance rounds.
    let reported = await metricValue(fixture.baseUrl, "persona_sqlite_wal_bytes");
    const reportedBy = Date.now() + 5_000;
    while (reported > 1024 * 1024 && Date.now() < reportedBy) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reported = await metricValue(fixture.baseUrl, "persona_sqlite_wal_bytes");
    }
    expect(reported).toBeLessThanOrEqual(1024 * 1024);
    expect(alive(fixture)).toBe(true);
  });

  it("releases what a killed instance held when it starts again, without an instance name", async () => {
    fixture = await startApi();
    liftRateLimits(fixture);
    const file = databaseOf(fixture);
    const directory = fixture.directory;
    const load = runLoad({
      baseUrl: fixture.baseUrl,
      apiKey: fixture.apiKey,
      personaId: fixture.personaId,
      concurrency: 10,
      durationMs: 1_500,
      prefix: "killed",
    });
    await new Promise((resolve) => setTimeout(resolve, 700));
    process.kill(fixture.pid, "SIGKILL");
    await load;
    const restarted = await spawnService(directory, {});
    try {
      store = await openStore(file);
      expect(await store.billing.balances.openReservations(fixture.accountId)).toBe(0);
    } finally {
      await restarted.stop();
    }
  });

  it("backs up under load with persona-admin backup, and a second instance restored from it has a ledger that matches", async () => {
    fixture = await startApi();
    liftRateLimits(fixture);
    const file = databaseOf(fixture);
    const backup = path.join(fixture.directory, "backups", "persona-reply.backup.sqlite");
    fs.mkdirSync(path.dirname(backup));
    const load = runLoad({
      baseUrl: fixture.baseUrl,
      apiKey: fixture.apiKey,
      personaId: fixture.personaId,
      concurrency: 10,
      durationMs: 3_000,
      prefix: "backup",
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const backupStarted = Date.now();
    const copy = spawn(process.execPath, [ADMIN_SCRIPT, "backup", backup], {
      cwd: scratchDirectory("persona-admin-"),
      env: isolatedEnvironment({ PERSONA_DATABASE_URL: file }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let copyOutput = "";
    copy.stdout.on("data", (chunk: Buffer) => {
      copyOutput += chunk.toString("utf8");
    });
    const copied = await new Promise<number | null>((resolve) => copy.once("exit", resolve));
    const results = await load;
    expect(copied).toBe(0);
    expect(JSON.parse(copyOutput)).toMatchObject({ file: backup });
    expect(fs.statSync(backup).mode & 0o777).toBe(0o600);
    // The service kept serving while the copy was made.
    expect(
      results.filter((result) => result.startedAt > backupStarted && result.status === 200).length,
    ).toBeGreaterThan(0);

    const restoredDirectory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-restored-"));
    const restoredFile = path.join(restoredDirectory, "persona-reply.sqlite");
    fs.copyFileSync(backup, restoredFile);
    const second = await spawnService(restoredDirectory, {
      PERSONA_DATABASE_URL: restoredFile,
      PERSONA_SEED_DEMO: "false",
    });
    try {
      store = await openStore(restoredFile);
      // Every request answered 200 before the copy began is in it, charged.
      const before = results.filter(
        (result) => result.status === 200 && result.startedAt + result.elapsedMs < backupStarted,
      );
      const rows = await store.usage.findByRequestIds(before.map((result) => result.requestId));
      expect(rows.filter((row) => row.status === 200 && row.costMicros > 0)).toHaveLength(
        before.length,
      );
      // The copy is consistent: the ledger sums to the balance, and what is
      // reserved is exactly what its open reservations hold.
      const balance = await store.billing.balances.balanceOf(fixture.accountId);
      expect(await store.billing.balances.ledgerSum(fixture.accountId)).toBe(
        balance?.balanceMicros,
      );
      const open = await store.database
        .selectFrom("balance_reservations")
        .select("amount_micros")
        .where("account_id", "=", fixture.accountId)
        .execute();
      expect(open.reduce((sum, row) => sum + Number(row.amount_micros), 0)).toBe(
        balance?.reservedMicros,
      );
      // And the restored instance serves.
      const served = await runLoad({
        baseUrl: second.url,
        apiKey: fixture.apiKey,
        personaId: fixture.personaId,
        concurrency: 2,
        durationMs: 300,
        prefix: "restored",
      });
      expect(served.every((result) => result.status === 200)).toBe(true);
    } finally {
      await second.stop();
      fs.rmSync(restoredDirectory, { recursive: true, force: true });
    }
  });

  it("makes the database file owner-only (0600) in an owner-only folder (0700)", async () => {
    fixture = await startApi();
    const file = databaseOf(fixture);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  });
});

describe("start-up on a bad SQLite file (exit 78, the path named)", () => {
  let directory: string;
  let good: string;
  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-startup-"));
    good = path.join(directory, "good.sqlite");
    // A consistent copy of a database in use (SQLite's online backup) is as good as any.
    const source = await startApi();
    const database = new SqliteDatabase(databaseOf(source), { readonly: true });
    await database.backup(good);
    database.close();
    await source.stop();
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  const start = (file: string, environment: Record<string, string> = {}) =>
    spawnSync(process.execPath, [MAIN_SCRIPT], {
      cwd: directory,
      env: isolatedEnvironment({
        PERSONA_PORT: "0",
        PERSONA_DATABASE_URL: file,
        PERSONA_SEED_DEMO: "false",
        PERSONA_ENV_FILE: path.join(directory, "no.env"),
        ...environment,
      }),
      encoding: "utf8",
      timeout: 20_000,
    });

  const copyOfGood = (name: string) => {
    const file = path.join(directory, name);
    fs.copyFileSync(good, file);
    return file;
  };

  it("refuses an existing empty file instead of taking it for a new database", () => {
    const file = path.join(directory, "empty.sqlite");
    fs.writeFileSync(file, "");
    const result = start(file);
    expect(result.status).toBe(78);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toMatch(/empty \(0 bytes\)/u);
  });

  it("refuses a file that is not a database, and a truncated one", () => {
    const garbage = path.join(directory, "garbage.sqlite");
    fs.writeFileSync(garbage, Buffer.alloc(16_384, 0x5a));
    const notDatabase = start(garbage);
    expect(notDatabase.status).toBe(78);
    expect(notDatabase.stderr).toContain(garbage);

    const truncated = copyOfGood("truncated.sqlite");
    fs.truncateSync(truncated, Math.floor(fs.statSync(truncated).size / 2));
    const result = start(truncated);
    expect(result.status).toBe(78);
    expect(result.stderr).toContain(truncated);
  });

  it("refuses a file with damaged pages in the middle (quick_check)", () => {
    const damaged = copyOfGood("damaged.sqlite");
    const size = fs.statSync(damaged).size;
    const handle = fs.openSync(damaged, "r+");
    // Garbage over the pages after the first, where tables and indexes live.
    fs.writeSync(handle, Buffer.alloc(8_192, 0xa5), 0, 8_192, Math.min(8_192, size - 8_192));
    fs.closeSync(handle);
    const result = start(damaged);
    expect(result.status).toBe(78);
    expect(result.stderr).toContain(damaged);
  });

  it("refuses a database written by a newer version", () => {
    const newer = copyOfGood("newer.sqlite");
    const database = new SqliteDatabase(newer);
    database
      .prepare("insert into kysely_migration (name, timestamp) values (?, ?)")
      .run("9999_from_the_future", new Date().toISOString());
    database.close();
    const result = start(newer);
    expect(result.status).toBe(78);
    expect(result.stderr).toMatch(
      /written by a newer version \(unknown migration 9999_from_the_future\)/u,
    );
  });

  /** Opens the store with persona-admin (`account list`), which exits 0, or 78 when it refuses. */
  const openWithAdmin = (file: string, environment: Record<string, string>) =>
    spawnSync(process.execPath, [ADMIN_SCRIPT, "account", "list"], {
      cwd: directory,
      env: isolatedEnvironment({ PERSONA_DATABASE_URL: file, ...environment }),
      encoding: "utf8",
      timeout: 20_000,
    });

  it("refuses to start anew where the env file's key was written for that very file, unless told to", () => {
    const folder = fs.mkdtempSync(path.join(directory, "named-"));
    const lost = path.join(folder, "persona-reply.sqlite");
    const envFile = path.join(folder, "seeded.env");
    fs.writeFileSync(envFile, `SERVICE_API_KEY=prk_${"x".repeat(38)}\nSERVICE_DATABASE=${lost}\n`);
    const refused = start(lost, { PERSONA_ENV_FILE: envFile });
    expect(refused.status).toBe(78);
    expect(refused.stderr).toMatch(/does not exist, but .*seeded\.env.* shows that one existed/u);
    expect(refused.stderr).toMatch(/PERSONA_NEW_DATABASE=true/u);
    expect(fs.existsSync(lost)).toBe(false);
    expect(openWithAdmin(lost, { PERSONA_ENV_FILE: envFile }).status).toBe(78);

    // A second, new file in the same folder is no loss: the operator may start one.
    const second = path.join(folder, "second.sqlite");
    const fresh = openWithAdmin(second, { PERSONA_ENV_FILE: envFile });
    expect(fresh.stderr).toBe("");
    expect(fresh.status).toBe(0);
    expect(fs.existsSync(second)).toBe(true);

    // Told to, the lost file is started anew.
    const told = openWithAdmin(lost, { PERSONA_ENV_FILE: envFile, PERSONA_NEW_DATABASE: "true" });
    expect(told.status).toBe(0);
    expect(fs.existsSync(lost)).toBe(true);
  });

  it("takes an env file that names no database (written before it did) to be about the default file beside it only", () => {
    const folder = fs.mkdtempSync(path.join(directory, "unnamed-"));
    const envFile = path.join(folder, ".env");
    fs.writeFileSync(envFile, `SERVICE_API_KEY=prk_${"x".repeat(38)}\n`);
    const defaultFile = path.join(folder, "data", "persona-reply.sqlite");
    const refused = start(defaultFile, { PERSONA_ENV_FILE: envFile });
    expect(refused.status).toBe(78);
    expect(refused.stderr).toMatch(/does not exist, but .*\.env.* shows that one existed/u);
    expect(fs.existsSync(defaultFile)).toBe(false);

    // Any other file (a test's scratch store, a second database) is not about it.
    const elsewhere = path.join(directory, "elsewhere", "store.sqlite");
    const fresh = openWithAdmin(elsewhere, { PERSONA_ENV_FILE: envFile });
    expect(fresh.status).toBe(0);
    expect(fs.existsSync(elsewhere)).toBe(true);
  });
});

describe("the operator CLI while another process holds the write lock", () => {
  it("waits politely, says what it waits for, and completes when the lock frees", async () => {
    const fixture = await startApi();
    try {
      // Held until the command has said it waits (however long a busy machine takes to
      // start it), then a second more, then freed.
      const holder = holdSqlite(databaseOf(fixture), "immediate", 60_000);
      await holder.started;
      const command = spawn(
        process.execPath,
        [
          path.resolve(MAIN_SCRIPT, "../admin/cli.js"),
          "account",
          "topup",
          fixture.accountId,
          "1.00",
        ],
        {
          cwd: fixture.directory,
          env: isolatedEnvironment({ PERSONA_DATABASE_URL: databaseOf(fixture) }),
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      command.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
      });
      let releasedAt: number | undefined;
      command.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        if (releasedAt === undefined && /waiting for the database/u.test(stderr)) {
          releasedAt = Date.now() + 1_000;
          setTimeout(() => holder.release(), 1_000);
        }
      });
      let exitedAt = 0;
      const status = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => command.kill("SIGKILL"), 45_000);
        command.once("exit", (code) => {
          exitedAt = Date.now();
          clearTimeout(timer);
          resolve(code);
        });
      });
      holder.release();
      await holder.done;
      expect(stderr).toMatch(/waiting for the database: another process holds its write lock/u);
      expect(status).toBe(0);
      // It completed only once the lock was freed, not by giving up early.
      expect(exitedAt).toBeGreaterThanOrEqual(releasedAt ?? Number.POSITIVE_INFINITY);
      expect(stdout).toMatch(/balance/iu);
    } finally {
      await fixture.stop();
    }
  });
});

/** Mounts a small tmpfs (root only), so a disk really fills: the database and its log alike. */
function mountSmallDisk(): { mountPoint: string; unmount(): void } | string {
  const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), "persona-small-disk-"));
  const mounted = spawnSync(
    "mount",
    ["-t", "tmpfs", "-o", "size=24m,mode=0700", "tmpfs", mountPoint],
    {
      encoding: "utf8",
    },
  );
  if (mounted.status !== 0) {
    fs.rmSync(mountPoint, { recursive: true, force: true });
    const reason = `cannot mount a tmpfs here (${(mounted.stderr || mounted.error?.message || "").trim()})`;
    if (process.env.CI === "true")
      throw new Error(`${reason}; CI runs the full-disk suite as root`);
    return reason;
  }
  return {
    mountPoint,
    unmount() {
      spawnSync("umount", ["-l", mountPoint]);
      fs.rmSync(mountPoint, { recursive: true, force: true });
    },
  };
}

const smallDisk = mountSmallDisk();
// Mounted when this file loads, so unmounted when it ends even if its suite is filtered out (-t).
afterAll(() => {
  if (typeof smallDisk !== "string") smallDisk.unmount();
});
/** The reservation TTL of the full-disk run, in seconds (the outside probe's). */
const RESERVATION_TTL_SECONDS = 4;
/** The first request after space returns is served within this (it took > 45 s). */
const RECOVERY_WITHIN_MS = 3_000;

describe.skipIf(typeof smallDisk === "string")(
  `a full disk${typeof smallDisk === "string" ? ` (skipped: ${smallDisk})` : ""}`,
  () => {
    const disk = smallDisk as Exclude<typeof smallDisk, string>;
    let fixture: ApiFixture | undefined;
    let store: Services | undefined;
    afterAll(async () => {
      await closeStore(store);
      await fixture?.stop();
    });

    it("answers 503 with Retry-After while the disk is full, says so once, releases at once, and recovers by itself when space returns", async () => {
      const file = path.join(disk.mountPoint, "persona-reply.sqlite");
      // A short reservation TTL, as the outside probe had: it must hold on a full disk too.
      fixture = await startApi({
        PERSONA_DATABASE_URL: file,
        PERSONA_RESERVATION_TTL_SECONDS: String(RESERVATION_TTL_SECONDS),
      });
      liftRateLimits(fixture);
      const padding = path.join(disk.mountPoint, "padding");
      const free = () => {
        const stats = fs.statfsSync(disk.mountPoint);
        return stats.bavail * stats.bsize;
      };
      fs.writeFileSync(padding, Buffer.alloc(Math.max(0, free() - 256 * 1024)));

      const results = await runLoad({
        baseUrl: fixture.baseUrl,
        apiKey: fixture.apiKey,
        personaId: fixture.personaId,
        concurrency: 10,
        durationMs: 4_000,
        prefix: "full",
      });
      // What the log frees after a checkpoint is taken too: the disk stays full.
      fs.writeFileSync(`${padding}-rest`, Buffer.alloc(free()));
      const full = results.filter((result) => result.status === 503);
      expect(full.length).toBeGreaterThan(0);
      expect(results.every((result) => result.status === 200 || result.status === 503)).toBe(true);
      for (const result of full) {
        // The wait it asks for is the wait it takes: the writer retries every 250 ms.
        expect(result.retryAfter).toBe("5");
        expect(result.body).toMatch(/disk is full/u);
      }
      // While writes keep failing, readiness says so (its probe writes too).
      const during = runLoad({
        baseUrl: fixture.baseUrl,
        apiKey: fixture.apiKey,
        personaId: fixture.personaId,
        concurrency: 5,
        durationMs: 3_000,
        prefix: "still-full",
      });
      let readiness: { status: number; retryAfter: string | null; body: string } | undefined;
      for (let attempt = 0; attempt < 30 && readiness?.status !== 503; attempt += 1) {
        const ready = await fetch(`${fixture.baseUrl}/readyz`);
        readiness = {
          status: ready.status,
          retryAfter: ready.headers.get("retry-after"),
          body: await ready.text(),
        };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      results.push(...(await during));
      expect(readiness?.status).toBe(503);
      expect(readiness?.retryAfter).toMatch(/^\d+$/u);
      expect(readiness?.body).toMatch(/disk is full/u);
      // Logged once, with SQLite's own words and the file's path — not "cannot rollback".
      const failing = fixture
        .output()
        .split("\n")
        .filter((line) => line.includes("storage failing"));
      expect(failing.length).toBeGreaterThanOrEqual(1);
      expect(failing.length).toBeLessThanOrEqual(2);
      expect(failing[0]).toContain(file);
      expect(fixture.output()).not.toMatch(/cannot rollback/u);
      expect(alive(fixture)).toBe(true);

      // Space returns under load: the service recovers by itself, within seconds, without a restart.
      fs.rmSync(padding);
      fs.rmSync(`${padding}-rest`);
      const spaceBackAt = Date.now();
      const after = await runLoad({
        baseUrl: fixture.baseUrl,
        apiKey: fixture.apiKey,
        personaId: fixture.personaId,
        concurrency: 5,
        durationMs: 3_000,
        prefix: "recovered",
      });
      const firstServed = after.find((result) => result.status === 200);
      expect(firstServed?.startedAt ?? Number.POSITIVE_INFINITY).toBeLessThan(
        spaceBackAt + RECOVERY_WITHIN_MS,
      );
      // Once it serves, it keeps serving (the log's space was given back, not eaten again).
      const served = after.filter((result) => result.startedAt >= (firstServed?.startedAt ?? 0));
      expect(served.every((result) => result.status === 200)).toBe(true);
      const ready = await fetch(`${fixture.baseUrl}/readyz`);
      await ready.text();
      expect(ready.status).toBe(200);

      store = await openStore(file);
      // Reservations of the refused requests were given back on time: within their TTL of the space returning.
      const reservedUntil = spaceBackAt + RESERVATION_TTL_SECONDS * 1000 + 2_000;
      while (
        Date.now() < reservedUntil &&
        (await store.billing.balances.openReservations(fixture.accountId)) > 0
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await store.billing.balances.openReservations(fixture.accountId)).toBe(0);
      expect(
        await ledgerProblems(store, fixture.accountId, [...results, ...after], DEMO_BALANCE_MICROS),
      ).toEqual([]);
    });
  },
);
