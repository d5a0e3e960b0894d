import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import type { DatabaseSchema } from "../src/storage/schema.js";
import { readUsageArchive } from "../src/usage/usage-archive.js";
import {
  ensureUsagePartitions,
  monthsAhead,
  monthsBetween,
  USAGE_DEFAULT_PARTITION,
  usagePartitions,
} from "../src/usage/usage-partitions.js";
import { runAdmin } from "./support/admin-in-process.js";
import {
  createTestDatabase,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
  writeOlderDatabase,
} from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";
import { insertFundedAccount, readDailyTotals, writeChargedUsage } from "./support/usage-ledger.js";

// PostgreSQL's monthly partitions of usage_records (migration 0013): an older database's rows move into them, and
// retention drops a month wholly older than its cutoff instead of deleting
// its rows, with the daily totals and "ledger sum = balance" unchanged.

const skipReason = await postgresUnavailable();
const NOW = new Date("2026-11-23T15:00:00.000Z");

/**
 * A usage row of an account carrying its charge when `costMicros` > 0,
 * written directly (with `chargeEntry`, into a database older than
 * migration 0017: the charge a `charge` entry).
 */
function usage(
  database: Kysely<DatabaseSchema>,
  accountId: string,
  createdAt: string,
  costMicros: number,
  chargeEntry = false,
): Promise<string> {
  const input = { accountId, costMicros, inputTokens: 3, outputTokens: 5, requestId: randomUUID() };
  return writeChargedUsage(database, input, createdAt, { chargeEntry });
}

async function tableExists(database: Kysely<DatabaseSchema>, name: string): Promise<boolean> {
  const { rows } = await sql<{
    found: string | null;
  }>`select to_regclass(${name})::text as found`.execute(database);
  return rows[0]?.found != null;
}

describe.skipIf(skipReason !== undefined)(
  suiteTitle("migration 0013: usage_records partitioned by month", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    let services: Services | undefined;
    beforeAll(async () => {
      database = await createTestDatabase("postgres");
    });
    afterAll(async () => {
      await closeStore(services);
      await database.drop();
    });

    it("moves an older database's rows into monthly partitions and keeps totals, trigger and lookups by id", async () => {
      // The schema as of migration 0012, with rows in it.
      const accountId = randomUUID();
      const ids: string[] = [];
      let totalsBefore: unknown;
      await writeOlderDatabase(database, "0013", async (older) => {
        await insertFundedAccount(older, {
          id: accountId,
          name: "Before partitions",
          createdAt: "2026-01-01T00:00:00.000Z",
          balanceMicros: 10_000_000,
        });
        for (const [day, cost] of [
          ["2026-05-03T10:00:00.000Z", 1_000],
          ["2026-07-31T23:59:59.999Z", 0],
          ["2026-08-01T00:00:00.000Z", 2_000],
          ["2026-11-20T08:00:00.000Z", 3_000],
          ["2001-02-03T04:05:06.000Z", 0], // older than any partition: the default one
        ] as const) {
          ids.push(await usage(older, accountId, day, cost, true));
        }
        totalsBefore = await readDailyTotals(older);
        const foreignKeys = await sql<{ name: string }>`select conname as name from pg_constraint
          where conrelid = 'balance_entries'::regclass and contype = 'f'
            and confrelid = 'usage_records'::regclass`.execute(older);
        expect(foreignKeys.rows).toHaveLength(1);
      });

      services = await openStore(database.url);
      const db = services.database;
      const kind = await sql<{
        kind: string;
      }>`select relkind as kind from pg_class where oid = 'usage_records'::regclass`.execute(db);
      expect(kind.rows[0]?.kind).toBe("p");
      const partitions = await usagePartitions(db);
      const now = new Date();
      expect(partitions.map((partition) => partition.name)).toEqual([
        ...[...new Set(["2026-05", "2026-07", "2026-08", "2026-11", ...monthsAhead(now)])]
          .sort()
          .map((month) => `usage_records_${month.replace("-", "_")}`),
        USAGE_DEFAULT_PARTITION,
      ]);
      expect(partitions[0]).toMatchObject({
        from: "2026-05-01T00:00:00.000Z",
        to: "2026-06-01T00:00:00.000Z",
      });
      // Every row kept, each in its month's partition (the boundary rows too).
      expect(await db.selectFrom("usage_records").select("id").execute()).toHaveLength(ids.length);
      const where = await sql<{ id: string; partition: string }>`select id,
        tableoid::regclass::text as partition from usage_records`.execute(db);
      const partitionOf = new Map(where.rows.map((row) => [row.id, row.partition]));
      expect(ids.map((id) => partitionOf.get(id))).toEqual([
        "usage_records_2026_05",
        "usage_records_2026_07",
        "usage_records_2026_08",
        "usage_records_2026_11",
        USAGE_DEFAULT_PARTITION,
      ]);
      expect(await readDailyTotals(db)).toEqual(totalsBefore);

      // Primary key (id, created_at); the indexes again, under their names (but `request_id`'s, which
      // migration 0018 drops); no foreign key to usage.
      const key = await sql<{ definition: string }>`select pg_get_constraintdef(oid) as definition
        from pg_constraint where conrelid = 'usage_records'::regclass and contype = 'p'`.execute(
        db,
      );
      expect(key.rows[0]?.definition).toBe("PRIMARY KEY (id, created_at)");
      const indexes = await sql<{ name: string }>`select indexname as name from pg_indexes
        where tablename = 'usage_records' order by indexname`.execute(db);
      expect(indexes.rows.map((row) => row.name)).toEqual([
        "usage_records_account_created",
        "usage_records_created_at",
        "usage_records_pkey",
      ]);
      const foreignKeys = await sql<{ name: string }>`select conname as name from pg_constraint
        where conrelid = 'balance_entries'::regclass and contype = 'f'
          and confrelid = 'usage_records'::regclass`.execute(db);
      expect(foreignKeys.rows).toEqual([]);
      expect(await tableExists(db, "usage_records_unpartitioned")).toBe(false);

      // The daily totals are kept on the partitioned table by the statement-level triggers of
      // migration 0014 (0013's row trigger, cloned onto every partition, is gone with it: no
      // partition counts a row twice), and lookups by id work.
      const trigger = await sql<{ name: string }>`select tgname as name from pg_trigger
        where tgrelid = 'usage_records'::regclass and not tgisinternal order by tgname`.execute(db);
      expect(trigger.rows.map((row) => row.name)).toEqual([
        "usage_records_daily_delete",
        "usage_records_daily_insert",
        "usage_records_daily_update",
      ]);
      const partitionTriggers = await sql<{
        name: string;
      }>`select t.tgname as name from pg_trigger t
        join pg_inherits i on i.inhrelid = t.tgrelid
        where i.inhparent = 'usage_records'::regclass and not t.tgisinternal`.execute(db);
      expect(partitionTriggers.rows).toEqual([]);
      const recent = ids[3] ?? "";
      const refunded = await services.billing.balances.reverseSettlement(recent, 503);
      expect(refunded).toBe(3_000);
      const row = await db
        .selectFrom("usage_records")
        .select(["status", "cost_micros"])
        .where("id", "=", recent)
        .executeTakeFirstOrThrow();
      expect({ status: row.status, cost: Number(row.cost_micros) }).toEqual({
        status: 503,
        cost: 0,
      });
      const day = await db
        .selectFrom("usage_daily_totals")
        .select(["served", "cost_micros"])
        .where("account_id", "=", accountId)
        .where("day", "=", "2026-11-20")
        .executeTakeFirstOrThrow();
      expect({ served: Number(day.served), cost: Number(day.cost_micros) }).toEqual({
        served: 0,
        cost: 0,
      });
      expect(await services.billing.balances.ledgerSum(accountId)).toBe(
        (await services.billing.balances.balanceOf(accountId))?.balanceMicros,
      );
    });
  },
);

describe.skipIf(skipReason !== undefined)(
  suiteTitle("usage retention drops whole monthly partitions", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    let services: Services;
    let customer: StoreCustomer;
    let archiveDir: string;
    const removable: string[] = [];
    let referenced = "";

    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), "persona-partitions-"));
      services = await openStore(database.url, {
        PERSONA_USAGE_RETENTION_DAYS: "30",
        PERSONA_USAGE_ARCHIVE_DIR: archiveDir,
        PERSONA_RETENTION_BATCH_SIZE: "3",
        PERSONA_RETENTION_PAUSE_MS: "0",
      });
      customer = await createCustomer(services, { balanceMicros: 5_000_000 });
      await ensureUsagePartitions(services.database, monthsBetween("2026-06", "2026-11"));
      const db = services.database;
      // Cutoff: 2026-10-24. August and September lie wholly before it; July holds a
      // row that a later refund refers to; October straddles it.
      for (const day of ["2026-08-01T00:00:00.000Z", "2026-08-17T09:00:00.000Z"]) {
        removable.push(await usage(db, customer.accountId, day, 1_000));
        removable.push(await usage(db, customer.accountId, day, 0));
      }
      for (let date = 1; date <= 30; date += 4) {
        const day = `2026-09-${String(date).padStart(2, "0")}T12:00:00.000Z`;
        removable.push(await usage(db, customer.accountId, day, 500 + date));
      }
      referenced = await usage(db, customer.accountId, "2026-07-10T10:00:00.000Z", 700);
      removable.push(await usage(db, customer.accountId, "2026-07-11T10:00:00.000Z", 0));
      await db
        .insertInto("balance_entries")
        .values({
          id: randomUUID(),
          account_id: customer.accountId,
          kind: "adjustment",
          amount_micros: 0,
          usage_id: referenced,
          note: "a refund dated after the cutoff",
          created_at: "2026-11-02T00:00:00.000Z",
        })
        .execute();
      removable.push(await usage(db, customer.accountId, "2026-10-05T12:00:00.000Z", 900));
      await usage(db, customer.accountId, "2026-10-24T00:00:00.000Z", 900);
      await usage(db, customer.accountId, "2026-11-20T12:00:00.000Z", 900);
    });
    afterAll(async () => {
      await closeStore(services);
      await database.drop();
      fs.rmSync(archiveDir, { recursive: true, force: true });
    });

    it("storage stats lists the partitions with rows, bytes and which the next run drops", async () => {
      const preview = await services.retention.preview(NOW);
      expect(preview.partitions).toEqual([
        "usage_records_2026_06",
        "usage_records_2026_07",
        "usage_records_2026_08",
        "usage_records_2026_09",
      ]);
      const { code, stdout } = await runAdmin(services, "storage", "stats", "--json");
      expect(code).toBe(0);
      const stats = JSON.parse(stdout);
      const september = stats.partitions.find(
        (entry: { partition: string }) => entry.partition === "usage_records_2026_09",
      );
      expect(september).toMatchObject({
        from: "2026-09-01T00:00:00.000Z",
        to: "2026-10-01T00:00:00.000Z",
        rows: 8,
      });
      expect(september.bytes).toBeGreaterThan(0);
      // The partitions are shown apart; the table's rows and bytes are theirs summed.
      const names = stats.tables.map((table: { table: string }) => table.table);
      expect(names).not.toContain("usage_records_2026_09");
      const table = stats.tables.find(
        (entry: { table: string }) => entry.table === "usage_records",
      );
      expect(table.rows).toBe(removable.length + 3);
      expect(table.bytes).toBeGreaterThan(0);
      const text = await runAdmin(services, "storage", "stats");
      expect(text.stdout).toMatch(/usage_records_2026_10\s+2026-10-01T00:00:00\.000Z/u);
    });

    it("asks only the partial index of non-charge entries which usage rows are referred to (migration 0015)", async () => {
      const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes
        where tablename = 'balance_entries' order by indexname`.execute(services.database);
      const names = indexes.rows.map((row) => row.indexname);
      expect(names).toContain("balance_entries_usage_refs");
      expect(names).not.toContain("balance_entries_usage_id");
      // The batched deletes' check can use it (seq scans off: the table is tiny here).
      const plan = await services.database.transaction().execute(async (transaction) => {
        await sql`set local enable_seqscan = off`.execute(transaction);
        return sql<{ "QUERY PLAN": string }>`explain select u.id from usage_records u
          where not exists (select 1 from balance_entries b where b.usage_id = u.id and b.kind <> 'charge')`.execute(
          transaction,
        );
      });
      expect(plan.rows.map((row) => row["QUERY PLAN"]).join("\n")).toContain(
        "balance_entries_usage_refs",
      );
    });

    it("drops the months wholly before the cutoff, keeps a month a ledger entry refers to, totals and ledger unchanged", async () => {
      const db = services.database;
      const totalsBefore = await readDailyTotals(db);

      const report = await services.retention.run(NOW);

      expect(report.partitionsDropped).toEqual([
        "usage_records_2026_06",
        "usage_records_2026_08",
        "usage_records_2026_09",
      ]);
      expect(report.usageRowsRemoved).toBe(removable.length);
      for (const name of report.partitionsDropped) expect(await tableExists(db, name)).toBe(false);
      // July stays: its one row a refund refers to is kept, the other deleted in a batch.
      expect(await tableExists(db, "usage_records_2026_07")).toBe(true);
      const left = await db.selectFrom("usage_records").select(["id", "created_at"]).execute();
      expect(left.map((row) => row.id)).toContain(referenced);
      expect(left).toHaveLength(3);
      expect(await readDailyTotals(db)).toEqual(totalsBefore);
      const balance = await services.billing.balances.balanceOf(customer.accountId);
      expect(await services.billing.balances.ledgerSum(customer.accountId)).toBe(
        balance?.balanceMicros,
      );
      // Every removed row was archived first, the dropped months' included.
      const archived: string[] = [];
      for await (const record of readUsageArchive(archiveDir)) archived.push(record.id);
      expect(archived.sort()).toEqual([...removable].sort());

      const again = await services.retention.run(NOW);
      expect(again).toMatchObject({ usageRowsRemoved: 0, partitionsDropped: [] });
    });

    it("a drop that cannot have its lock in time leaves the month to batched deletes", async () => {
      const db = services.database;
      await ensureUsagePartitions(db, ["2026-06"]);
      const june: string[] = [];
      for (const date of ["03", "14", "29"]) {
        june.push(await usage(db, customer.accountId, `2026-06-${date}T08:00:00.000Z`, 0));
      }
      // Another session reads usage_records in a long transaction: a drop would wait for it.
      const reader = new pg.Client({ connectionString: database.url });
      await reader.connect();
      try {
        await reader.query("begin");
        await reader.query("lock table usage_records in access share mode");
        const started = Date.now();
        const report = await services.retention.run(NOW);
        expect(report.partitionsDropped).toEqual([]);
        expect(report.usageRowsRemoved).toBe(june.length);
        // 20 tries of at most 200 ms each, then batched deletes (which the reader does not block).
        expect(Date.now() - started).toBeLessThan(10_000);
        await reader.query("rollback");
      } finally {
        await reader.end();
      }
      expect(await tableExists(db, "usage_records_2026_06")).toBe(true);
      expect((await services.retention.run(NOW)).partitionsDropped).toEqual([
        "usage_records_2026_06",
      ]);
    });

    it("makes the partitions ahead once; a month whose rows went to the default partition is left there", async () => {
      const db = services.database;
      await usage(db, customer.accountId, "2027-03-15T00:00:00.000Z", 0);
      const existing = new Set((await usagePartitions(db)).map((partition) => partition.name));
      expect(
        await services.retention.ensurePartitions(new Date("2027-02-03T00:00:00.000Z")),
      ).toEqual(
        ["usage_records_2027_02", "usage_records_2027_04"].filter((name) => !existing.has(name)),
      );
      expect(
        await services.retention.ensurePartitions(new Date("2027-02-03T00:00:00.000Z")),
      ).toEqual([]);
      const row = await sql<{ partition: string }>`select tableoid::regclass::text as partition
        from usage_records where created_at = '2027-03-15T00:00:00.000Z'`.execute(db);
      expect(row.rows[0]?.partition).toBe(USAGE_DEFAULT_PARTITION);
      // A new row of a month with a partition goes there.
      const id = await usage(db, customer.accountId, "2027-04-02T00:00:00.000Z", 0);
      const placed = await sql<{ partition: string }>`select tableoid::regclass::text as partition
        from usage_records where id = ${id}`.execute(db);
      expect(placed.rows[0]?.partition).toBe("usage_records_2027_04");
    });
  },
);
