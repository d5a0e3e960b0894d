import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import { retentionCutoff } from "../src/usage/retention-settings.js";
import { readUsageArchive, usageArchiveFiles } from "../src/usage/usage-archive.js";
import { usageRow } from "../src/usage/usage-record.js";
import { usageReportOf } from "../src/usage/usage-report.js";
import { UsageRetention } from "../src/usage/usage-retention.js";
import { runAdmin } from "./support/admin-in-process.js";
import { createTestDatabase, describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";
import { readDailyTotals, refusedUsage, writeChargedUsage } from "./support/usage-ledger.js";

// Usage retention on both dialects: old usage
// rows removed in batches (archived first), newer ones kept, daily totals
// untouched, ledger entries rolled into one carried-forward entry per
// account and month with the ledger sum still the balance.

const NOW = new Date("2026-11-23T15:00:00.000Z");
const DAY = 86_400_000;
const RETENTION_DAYS = 30;
const BATCH = 7;

function daysAgo(days: number, hour = 12): string {
  return new Date(
    Date.parse("2026-11-23T00:00:00.000Z") - days * DAY + hour * 3_600_000,
  ).toISOString();
}

const admin = runAdmin;

/** A usage row with its charge, as settlement writes them. */
async function charge(
  services: Services,
  customer: StoreCustomer,
  createdAt: string,
  costMicros: number,
  status = 200,
): Promise<void> {
  await writeChargedUsage(
    services.database,
    {
      accountId: customer.accountId,
      apiKeyId: customer.keyId,
      personaId: customer.persona.id,
      status,
      costMicros,
      requestId: randomUUID(),
      upstream: "offline",
      model: "persona-engine",
    },
    createdAt,
  );
}

await describeEachDialect("usage retention", (database) => {
  let services: Services;
  let customers: StoreCustomer[];
  let archiveDir: string;
  let retention: UsageRetention;
  const oldRows = { count: 0 };

  beforeAll(async () => {
    archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), "persona-archive-"));
    services = await openStore(database.url, {
      PERSONA_USAGE_RETENTION_DAYS: String(RETENTION_DAYS),
      PERSONA_USAGE_ARCHIVE_DIR: archiveDir,
      PERSONA_RETENTION_BATCH_SIZE: String(BATCH),
      PERSONA_RETENTION_PAUSE_MS: "0",
    });
    retention = services.retention;
    customers = [
      await createCustomer(services, { balanceMicros: 50_000_000 }),
      await createCustomer(services, { balanceMicros: 20_000_000 }),
    ];
    // Top-ups made long ago (two months before the cutoff), then charges old and new.
    for (const customer of customers) {
      await services.database
        .updateTable("balance_entries")
        .set({ created_at: daysAgo(95) })
        .where("account_id", "=", customer.accountId)
        .execute();
    }
    for (let day = 31; day <= 62; day += 3) {
      for (const [index, customer] of customers.entries()) {
        await charge(services, customer, daysAgo(day, 1 + index), 1_000 + day);
        await charge(services, customer, daysAgo(day, 20), 0, 429);
        oldRows.count += 2;
      }
    }
    for (let day = 0; day <= 29; day += 7) {
      for (const customer of customers) await charge(services, customer, daysAgo(day), 500);
    }
  });
  afterAll(async () => {
    await closeStore(services);
    fs.rmSync(archiveDir, { recursive: true, force: true });
  });

  async function ledgerMatchesBalances() {
    for (const customer of customers) {
      const balance = await services.billing.balances.balanceOf(customer.accountId);
      expect(await services.billing.balances.ledgerSum(customer.accountId)).toBe(
        balance?.balanceMicros,
      );
    }
  }

  it("storage stats shows rows and bytes per table, the oldest rows and what retention removes", async () => {
    const { code, stdout } = await admin(services, "storage", "stats", "--json");
    expect(code).toBe(0);
    const stats = JSON.parse(stdout);
    const usage = stats.tables.find((table: { table: string }) => table.table === "usage_records");
    expect(usage.rows).toBe(oldRows.count + 10);
    expect(usage.bytes).toBeGreaterThan(0);
    expect(stats.databaseBytes).toBeGreaterThan(0);
    expect(stats.oldest.usageRecords).toBe(daysAgo(61, 1));
    expect(stats.oldest.ledgerEntries).toBe(daysAgo(95));
    // The preview counts as of today; the fixed test dates are relative to NOW.
    const preview = await retention.preview(NOW);
    expect(preview).toMatchObject({
      days: RETENTION_DAYS,
      cutoff: retentionCutoff(RETENTION_DAYS, NOW),
      usageRows: oldRows.count,
      // 2 top-ups + 11 charges each
      ledgerEntries: 2 + 22,
      archiveDir,
    });
    const text = await admin(services, "storage", "stats");
    expect(text.stdout).toMatch(/usage_records\s+\d+\s+\d+/u);
  });

  it.skipIf(database.dialect !== "postgres")(
    "storage vacuum on PostgreSQL changes nothing and says autovacuum gives space back",
    async () => {
      const vacuum = await admin(services, "storage", "vacuum");
      expect(vacuum.code).toBe(1);
      expect(vacuum.stdout).toBe("");
      expect(vacuum.stderr).toBe("PostgreSQL reclaims space by autovacuum; see docs/OPERATIONS.md");
    },
  );

  it("removes old rows in batches, keeps newer ones, the daily totals and ledger sum = balance", async () => {
    const totalsBefore = await readDailyTotals(services.database);
    const reportBefore = await services.usage.report({ to: daysAgo(31).slice(0, 10) });
    await ledgerMatchesBalances();

    const report = await retention.run(NOW);

    expect(report.usageRowsRemoved).toBe(oldRows.count);
    expect(report.ledgerEntriesRolledUp).toBe(24);
    // Each transaction holds at most BATCH rows.
    expect(report.batches).toBeGreaterThanOrEqual(
      Math.ceil(oldRows.count / BATCH) + Math.ceil(24 / BATCH),
    );
    const cutoff = retentionCutoff(RETENTION_DAYS, NOW);
    const left = await services.database.selectFrom("usage_records").select("created_at").execute();
    expect(left).toHaveLength(10);
    expect(left.every((row) => row.created_at >= cutoff)).toBe(true);
    expect(await readDailyTotals(services.database)).toEqual(totalsBefore);
    await ledgerMatchesBalances();

    // One carried-forward entry per account and month.
    const carried = await services.database
      .selectFrom("balance_entries")
      .select(["account_id", "created_at"])
      .where("kind", "=", "carried_forward")
      .execute();
    const months = new Set(carried.map((row) => `${row.account_id} ${row.created_at.slice(0, 7)}`));
    expect(carried).toHaveLength(months.size);
    expect(months.size).toBe(report.carriedForwardMonths);
    expect(
      await services.database
        .selectFrom("balance_entries")
        .select("id")
        .where("created_at", "<", cutoff)
        .where("kind", "<>", "carried_forward")
        .execute(),
    ).toHaveLength(0);

    // The archive holds every removed row, and reads back as the same report.
    expect(report.archiveFiles.reduce((sum, file) => sum + file.rows, 0)).toBe(oldRows.count);
    let archived = 0;
    for await (const _record of readUsageArchive(archiveDir)) archived += 1;
    expect(archived).toBe(oldRows.count);
    expect(
      usageArchiveFiles(archiveDir).every((file) =>
        /usage-\d{4}-\d{2}-\d{2}\.jsonl\.gz$/u.test(file),
      ),
    ).toBe(true);
    expect(await usageReportOf(readUsageArchive(archiveDir))).toEqual(reportBefore);
    const cli = await admin(services, "usage", "--from-archive", archiveDir, "--json");
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual(reportBefore);
    const from = daysAgo(40).slice(0, 10);
    const to = daysAgo(34).slice(0, 10);
    const some = await admin(
      services,
      "usage",
      "--from-archive",
      archiveDir,
      "--from",
      from,
      "--to",
      to,
      "--json",
    );
    const expected = reportBefore.filter((line) => line.day >= from && line.day <= to);
    expect(expected.length).toBeGreaterThan(0);
    expect(JSON.parse(some.stdout)).toEqual(expected);
  });

  it("a second run removes nothing more and keeps one carried-forward entry per month", async () => {
    // An entry of an already rolled month, dated before the cutoff (made late, e.g. an adjustment).
    const customer = customers[0];
    if (customer === undefined) throw new Error("no customer");
    await services.billing.balances.topUp(customer.accountId, 1_000_000, "late adjustment");
    await services.database
      .updateTable("balance_entries")
      .set({ created_at: daysAgo(95, 3) })
      .where("note", "=", "late adjustment")
      .execute();
    const carriedBefore = await services.database
      .selectFrom("balance_entries")
      .select("id")
      .where("kind", "=", "carried_forward")
      .execute();
    const report = await retention.run(NOW);
    expect(report).toMatchObject({
      usageRowsRemoved: 0,
      ledgerEntriesRolledUp: 1,
      archiveFiles: [],
    });
    const carriedAfter = await services.database
      .selectFrom("balance_entries")
      .select("id")
      .where("kind", "=", "carried_forward")
      .execute();
    expect(carriedAfter).toHaveLength(carriedBefore.length);
    await ledgerMatchesBalances();
  });

  it("an archive day written twice gets a part file and is read once", async () => {
    const before = usageArchiveFiles(archiveDir);
    const first = before[0];
    if (first === undefined) throw new Error("no archive file");
    const day = /usage-(\d{4}-\d{2}-\d{2})/u.exec(first)?.[1] ?? "";
    const { writeUsageArchive } = await import("../src/usage/usage-archive.js");
    const records: unknown[] = [];
    for await (const record of readUsageArchive(archiveDir)) records.push(record);
    const again = await writeUsageArchive(
      archiveDir,
      day,
      (async function* () {
        // The same rows again (a run stopped between archiving and removing).
        const { createGunzip } = await import("node:zlib");
        const text = await new Promise<string>((resolve, reject) => {
          const chunks: Buffer[] = [];
          fs.createReadStream(first)
            .pipe(createGunzip())
            .on("data", (chunk: Buffer) => chunks.push(chunk))
            .on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
            .on("error", reject);
        });
        yield text
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
      })(),
    );
    expect(path.basename(again.file ?? "")).toBe(`usage-${day}.part-1.jsonl.gz`);
    let count = 0;
    for await (const _record of readUsageArchive(archiveDir)) count += 1;
    expect(count).toBe(records.length);
  });

  it("the request path keeps recording usage while retention runs", async () => {
    const customer = customers[1];
    if (customer === undefined) throw new Error("no customer");
    for (let day = 40; day < 70; day += 1) {
      for (let n = 0; n < 4; n += 1) await charge(services, customer, daysAgo(day, n), 0, 429);
    }
    const slow = new UsageRetention(services.store, { ...retention.settings, pauseMs: 5 });
    const run = slow.run(NOW);
    const recorded: string[] = [];
    let done = false;
    void run.finally(() => {
      done = true;
    });
    while (!done || recorded.length < 20) {
      recorded.push(
        await services.usage.record(
          refusedUsage({
            accountId: customer.accountId,
            apiKeyId: customer.keyId,
            personaId: customer.persona.id,
          }),
        ),
      );
    }
    const report = await run;
    expect(report.usageRowsRemoved).toBe(120);
    const kept = await services.usage.findByRequestIds([]);
    expect(kept).toEqual([]);
    const rows = await services.database
      .selectFrom("usage_records")
      .select("id")
      .where("id", "in", recorded)
      .execute();
    expect(rows).toHaveLength(recorded.length);
    await ledgerMatchesBalances();
  });
});

await describeEachDialect("usage retention's background job", (database) => {
  let services: Services;
  beforeAll(async () => {
    services = await openStore(database.url, {
      PERSONA_USAGE_RETENTION_DAYS: "30",
      PERSONA_RETENTION_PAUSE_MS: "0",
    });
  });
  afterAll(async () => {
    await closeStore(services);
  });

  it("runs off a timer and stops, waiting for the run under way", async () => {
    const customer = await createCustomer(services, { balanceMicros: 0 });
    await charge(services, customer, daysAgo(200), 0, 429);
    const job = new UsageRetention(services.store, { ...services.retention.settings });
    job.start(10);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const left = await services.database.selectFrom("usage_records").select("id").execute();
      if (left.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await job.stop();
    expect(await services.database.selectFrom("usage_records").select("id").execute()).toEqual([]);
  });

  it.runIf(database.dialect === "postgres")(
    "skips the run while another instance holds the advisory lock",
    async () => {
      const { default: pg } = await import("pg");
      const { RETENTION_LOCK_KEY } = await import("../src/usage/postgres/postgres-retention.js");
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      try {
        await other.query("select pg_advisory_lock($1)", [RETENTION_LOCK_KEY]);
        expect((await services.retention.run(NOW)).skipped).toBe("busy");
        await other.query("select pg_advisory_unlock($1)", [RETENTION_LOCK_KEY]);
        expect((await services.retention.run(NOW)).skipped).toBeUndefined();
      } finally {
        await other.end();
      }
    },
  );

  it("refuses to run when off, and says so", async () => {
    const off = new UsageRetention(services.store, {
      ...services.retention.settings,
      days: null,
    });
    expect(await off.run(NOW)).toMatchObject({ skipped: "off", usageRowsRemoved: 0 });
  });
});

await describeEachDialect("usage retention of x402 payment rows", (database) => {
  let services: Services;
  beforeAll(async () => {
    services = await openStore(database.url, {
      PERSONA_USAGE_RETENTION_DAYS: String(RETENTION_DAYS),
      PERSONA_RETENTION_BATCH_SIZE: "4",
      PERSONA_RETENTION_PAUSE_MS: "0",
    });
  });
  afterAll(async () => {
    await closeStore(services);
  });

  it("removes the payment rows older than the cutoff in batches, reading their index, and keeps newer ones", async () => {
    const customer = await createCustomer(services, { balanceMicros: 0 });
    // As the x402 gate writes them: keyed by the hash of the payment's payer and nonce.
    const row = (createdAt: string) => ({
      id: randomUUID().replaceAll("-", "").repeat(2),
      persona_id: customer.persona.id,
      amount_micros: 10_000,
      status: "settled" as const,
      payer: "0x00000000000000000000000000000000000000aA",
      transaction_reference: `0x${randomUUID().replaceAll("-", "")}`,
      created_at: createdAt,
    });
    const old = Array.from({ length: 10 }, (_, n) => row(daysAgo(31 + n * 9, n % 24)));
    const kept = [row(daysAgo(29)), row(daysAgo(3)), row(daysAgo(0))];
    await services.database
      .insertInto("x402_payments")
      .values([...old, ...kept])
      .execute();
    expect((await services.retention.preview(NOW)).paymentRows).toBe(old.length);

    const report = await services.retention.run(NOW);

    expect(report.paymentRowsRemoved).toBe(old.length);
    // Nothing else to remove: the batches are the payment rows', 4 at most each.
    expect(report.batches).toBe(Math.ceil(old.length / 4));
    const left = await services.database.selectFrom("x402_payments").select("id").execute();
    expect(left.map((entry) => entry.id).sort()).toEqual(kept.map((entry) => entry.id).sort());

    // A batch reads only the rows it removes (migration 0024's index), not the whole table.
    const cutoff = retentionCutoff(RETENTION_DAYS, NOW);
    const plan =
      database.dialect === "sqlite"
        ? (
            await sql<{
              detail: string;
            }>`explain query plan select id from x402_payments where created_at < ${cutoff} order by created_at limit 4`.execute(
              services.database,
            )
          ).rows.map((line) => line.detail)
        : await services.database.transaction().execute(async (transaction) => {
            // The table is tiny here: seq scans off, to see that the index serves.
            await sql`set local enable_seqscan = off`.execute(transaction);
            const { rows } = await sql<{
              "QUERY PLAN": string;
            }>`explain select id from x402_payments where created_at < ${cutoff} order by created_at limit 4`.execute(
              transaction,
            );
            return rows.map((line) => line["QUERY PLAN"]);
          });
    expect(plan.join("\n")).toContain("x402_payments_created_at");
  });
});

describe("usage retention on SQLite", () => {
  it("storage vacuum switches a file made with auto_vacuum = NONE to INCREMENTAL", async () => {
    const database = await createTestDatabase("sqlite");
    // A file made before this version: auto_vacuum NONE, one table already.
    const old = new SqliteDatabase(database.url);
    old.exec("create table legacy (x)");
    old.close();
    const services = await openStore(database.url, { PERSONA_NEW_DATABASE: "true" });
    try {
      const before = JSON.parse((await admin(services, "storage", "stats", "--json")).stdout);
      expect(before.sqlite.autoVacuum).toBe("none");
      const vacuum = await admin(services, "storage", "vacuum");
      expect(vacuum.code).toBe(0);
      const after = JSON.parse((await admin(services, "storage", "stats", "--json")).stdout);
      expect(after.sqlite.autoVacuum).toBe("incremental");
    } finally {
      await closeStore(services);
      await database.drop();
    }
  });

  it("gives freed pages back: the file shrinks after retention (auto_vacuum = INCREMENTAL)", async () => {
    const database = await createTestDatabase("sqlite");
    const services = await openStore(database.url, {
      PERSONA_USAGE_RETENTION_DAYS: "30",
      PERSONA_RETENTION_PAUSE_MS: "0",
    });
    try {
      const customer = await createCustomer(services, { balanceMicros: 0 });
      const padding = "x".repeat(1500);
      for (let chunk = 0; chunk < 8; chunk += 1) {
        await services.database
          .insertInto("usage_records")
          .values(
            Array.from({ length: 250 }, (_, n) => ({
              ...usageRow(
                randomUUID(),
                daysAgo(40 + ((chunk * 250 + n) % 20)),
                refusedUsage({ accountId: customer.accountId, paymentReference: padding }),
              ),
            })),
          )
          .execute();
      }
      const stats = JSON.parse((await admin(services, "storage", "stats", "--json")).stdout);
      expect(stats.sqlite.autoVacuum).toBe("incremental");
      const before = stats.databaseBytes;
      expect(before).toBeGreaterThan(3_000_000);
      const report = await services.retention.run(NOW);
      expect(report.usageRowsRemoved).toBe(2000);
      expect(report.reclaimedBytes).toBeGreaterThan(2_000_000);
      const after = JSON.parse((await admin(services, "storage", "stats", "--json")).stdout);
      expect(after.databaseBytes).toBeLessThan(before - 2_000_000);
      // The file itself shrinks when the write-ahead log is checkpointed into it.
      await closeStore(services);
      const file = new SqliteDatabase(database.url);
      file.pragma("wal_checkpoint(TRUNCATE)");
      file.close();
      expect(fs.statSync(database.url).size).toBeLessThan(before - 2_000_000);
    } finally {
      await closeStore(services);
      await database.drop();
    }
  });
});
