import { randomUUID } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import type { AdmitOutcome } from "../src/storage/ledger.js";
import {
  HOLD_ACCOUNTS_FUNCTION,
  SETTLE_ACCOUNTS_FUNCTION,
} from "../src/storage/postgres/ledger-functions.js";
import {
  createTestDatabase,
  describeEachDialect,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
  writeOlderDatabase,
} from "./support/test-databases.js";
import { closeStore, openStore, runWithConcurrency } from "./support/test-store.js";
import { insertFundedAccount, usageInput } from "./support/usage-ledger.js";

// Migrations 0020, 0021 and 0022 (WAL per request), PostgreSQL
// only: rate-limit windows are unlogged, and admission and settlement
// batches lock the account rows they change by their updates, in key
// order, so they write no row-lock records (the foreign keys of usage rows
// and holds to accounts, whose checks wrote one, are gone). SQLite keeps
// its schema.

/** Names of the tables `table` refers to by a foreign key. */
async function foreignKeysOf(
  database: TestDatabase,
  raw: Kysely<unknown>,
  table: "usage_records" | "balance_reservations",
): Promise<string[]> {
  const rows =
    database.dialect === "sqlite"
      ? await sql<{ name: string }>`select "table" as name
          from pragma_foreign_key_list(${table})`.execute(raw)
      : await sql<{ name: string }>`select confrelid::regclass::text as name from pg_constraint
          where contype = 'f' and conrelid = ${table}::regclass`.execute(raw);
  return rows.rows.map((row) => row.name).sort();
}

await describeEachDialect("migrations 0020 to 0022: the request path's row locks", (database) => {
  let services: Services | undefined;
  const accountId = randomUUID();
  let foreignKeysBefore: string[] = [];
  let holdKeysBefore: string[] = [];

  beforeAll(async () => {
    await writeOlderDatabase(database, "0020", async (raw) => {
      await insertFundedAccount(raw, {
        id: accountId,
        name: "Before 0020",
        createdAt: "2026-11-01T00:00:00.000Z",
        balanceMicros: 10_000,
      });
      await raw
        .insertInto("rate_limit_buckets")
        .values({
          bucket: "key:before-0020",
          minute_start: 1_000,
          minute_count: 3,
          hour_start: 1_000,
          hour_count: 7,
          day_start: 1_000,
          day_count: 11,
        })
        .execute();
      foreignKeysBefore = await foreignKeysOf(database, raw as Kysely<unknown>, "usage_records");
      holdKeysBefore = await foreignKeysOf(
        database,
        raw as Kysely<unknown>,
        "balance_reservations",
      );
    });
    services = await openStore(database.url);
  });

  afterAll(async () => {
    if (services !== undefined) await closeStore(services);
  });

  it("keeps the windows' rows; on PostgreSQL unlogged, without the usage rows' and holds' keys to accounts", async () => {
    const db = services?.database as unknown as Kysely<unknown>;
    const bucket = await sql<{ day_count: number | string }>`select day_count
      from rate_limit_buckets where bucket = 'key:before-0020'`.execute(db);
    expect(bucket.rows.map((row) => Number(row.day_count))).toEqual([11]);
    expect(foreignKeysBefore).toContain("accounts");
    expect(holdKeysBefore).toContain("accounts");
    if (database.dialect === "sqlite") {
      expect(await foreignKeysOf(database, db, "usage_records")).toEqual(foreignKeysBefore);
      expect(await foreignKeysOf(database, db, "balance_reservations")).toEqual(holdKeysBefore);
      return;
    }
    const persistence = await sql<{ relname: string; relpersistence: string }>`
      select relname, relpersistence from pg_class
      where relname in ('rate_limit_buckets', 'accounts', 'usage_daily_totals') order by relname`.execute(
      db,
    );
    expect(persistence.rows).toEqual([
      { relname: "accounts", relpersistence: "p" },
      { relname: "rate_limit_buckets", relpersistence: "u" },
      { relname: "usage_daily_totals", relpersistence: "p" },
    ]);
    expect(await foreignKeysOf(database, db, "usage_records")).toEqual([]);
    expect(await foreignKeysOf(database, db, "balance_reservations")).toEqual([]);
    const functions = await sql<{ name: string }>`select proname as name from pg_proc
      where proname in (${HOLD_ACCOUNTS_FUNCTION}, ${SETTLE_ACCOUNTS_FUNCTION}) order by proname`.execute(
      db,
    );
    expect(functions.rows.map((row) => row.name)).toEqual([
      HOLD_ACCOUNTS_FUNCTION,
      SETTLE_ACCOUNTS_FUNCTION,
    ]);
    // The ledger keeps its key to accounts.
    const entryKeys = await sql<{ name: string }>`select confrelid::regclass::text as name
      from pg_constraint where contype = 'f' and conrelid = 'balance_entries'::regclass`.execute(
      db,
    );
    expect(entryKeys.rows.map((row) => row.name)).toContain("accounts");
  });
});

const skipReason = await postgresUnavailable();

/** WAL records of one database between two positions: the table each names and its kind. */
async function walRecords(
  db: Kysely<unknown>,
  from: string,
  to: string,
): Promise<Array<{ table: string; kind: string }>> {
  const { rows } = await sql<{ table: string | null; kind: string }>`
    with records as (
      select resource_manager || '/' || record_type as kind,
        regexp_match(block_ref, 'rel \\d+/(\\d+)/(\\d+)') as ref
      from pg_get_wal_records_info(${from}::pg_lsn, ${to}::pg_lsn)
    )
    select c.relname as table, r.kind from records r
    join pg_database d on d.oid::text = r.ref[1] and d.datname = current_database()
    left join pg_class c on pg_relation_filenode(c.oid)::text = r.ref[2]`.execute(db);
  return rows.map((row) => ({ table: row.table ?? "?", kind: row.kind }));
}

describe.skipIf(skipReason !== undefined)(
  suiteTitle("admission and settlement batches without row-lock records", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    let first: Services;
    let second: Services;

    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      first = await openStore(database.url, { PERSONA_INSTANCE_ID: "lock-records-1" });
      second = await openStore(database.url, { PERSONA_INSTANCE_ID: "lock-records-2" });
      await sql`create extension if not exists pg_walinspect`.execute(first.database);
    });
    afterAll(async () => {
      await closeStore(first);
      await closeStore(second);
      await database.drop();
    });

    it("writes no lock record for accounts, totals or windows, and no WAL for the windows", async () => {
      const { balances } = first.billing;
      const accounts = await Promise.all(
        Array.from({ length: 6 }, async (_, index) => {
          const account = await first.accounts.create(`Lock records ${index}`);
          await balances.topUp(account.id, 100_000, "funds");
          return account.id;
        }),
      );
      const db = first.database as unknown as Kysely<unknown>;
      /** Admits (counted in each account's own window) and settles one request of every account at once. */
      const serveEach = async () => {
        const now = Date.now();
        const holds = await Promise.all(
          accounts.map(async (accountId) => {
            const hold = balances.holdFor(accountId, 1_000, null, new Date(now));
            const outcome = await first.store.ledger.admit(
              {
                rateLimit: {
                  bucket: `key:${accountId}`,
                  limits: { minute: 10, hour: 10, day: 10 },
                  now,
                },
                hold,
              },
              Date.now() + 5_000,
            );
            expect(outcome.admitted).toBe(true);
            return { id: hold.id, accountId, amountMicros: hold.amountMicros };
          }),
        );
        const settled = await Promise.all(
          holds.map((hold) =>
            balances.settle(hold, 400, usageInput({ accountId: hold.accountId, costMicros: 400 })),
          ),
        );
        expect(settled.map((settlement) => settlement.chargedMicros)).toEqual(
          accounts.map(() => 400),
        );
      };
      // The first round makes the windows' and the daily totals' rows; the second updates them.
      await serveEach();
      const from = (
        await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(db)
      ).rows[0]?.lsn as string;
      await serveEach();
      // The settlements' commits waited for the flush: everything before is readable.
      const to = (
        await sql<{ lsn: string }>`select pg_current_wal_flush_lsn()::text as lsn`.execute(db)
      ).rows[0]?.lsn as string;
      const records = await walRecords(db, from, to);
      const of = (table: string, kind: string) =>
        records.filter((record) => record.table === table && record.kind.startsWith(kind)).length;
      // What the assertions below would see if the change were undone: the updates are there.
      expect(of("accounts", "Heap/HOT_UPDATE") + of("accounts", "Heap/UPDATE")).toBeGreaterThan(0);
      expect(
        of("usage_daily_totals", "Heap/HOT_UPDATE") + of("usage_daily_totals", "Heap/UPDATE"),
      ).toBeGreaterThan(0);
      // Neither admissions nor settlements lock an account apart from updating it.
      expect(of("accounts", "Heap/LOCK")).toBe(0);
      expect(of("usage_daily_totals", "Heap/LOCK")).toBe(0);
      expect(records.filter((record) => record.table === "rate_limit_buckets")).toEqual([]);
      for (const accountId of accounts) {
        expect(await balances.balanceOf(accountId)).toEqual({
          currency: "USD",
          balanceMicros: 100_000 - 2 * 400,
          reservedMicros: 0,
        });
      }
    });

    it("decides a hold again on the balance it changes when the balance moved after it was read", async () => {
      const { balances } = first.billing;
      const account = await first.accounts.create("Moved balance");
      await balances.topUp(account.id, 1_000, "funds");
      const db = first.database as unknown as Kysely<unknown>;
      let admissions: Promise<AdmitOutcome[]> | undefined;
      // Another writer lowers the balance to 500 and holds the row until the admissions wait for it.
      await db.transaction().execute(async (trx) => {
        await sql`update accounts set balance_micros = balance_micros - 500
          where id = ${account.id}`.execute(trx);
        const now = new Date();
        admissions = Promise.all(
          [1, 2].map(() =>
            first.store.ledger.admit(
              { hold: balances.holdFor(account.id, 400, null, now) },
              Date.now() + 10_000,
            ),
          ),
        );
        for (let waited = 0; ; waited += 1) {
          const waiting = await sql<{ waiting: number | string }>`select count(*) as waiting
            from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(
            db,
          );
          if (Number(waiting.rows[0]?.waiting) > 0) break;
          if (waited > 200) throw new Error("the admission never waited for the row");
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      });
      // Read before the other commit, 1,000 fits both holds; 500 fits one.
      const outcomes = await (admissions as Promise<AdmitOutcome[]>);
      expect(outcomes.map((outcome) => outcome.admitted)).toEqual([true, false]);
      expect(await balances.balanceOf(account.id)).toEqual({
        currency: "USD",
        balanceMicros: 500,
        reservedMicros: 400,
      });
    });

    it("two instances admit and settle across shared accounts in any order without a deadlock", async () => {
      const accounts = await Promise.all(
        Array.from({ length: 8 }, async (_, index) => {
          const account = await first.accounts.create(`Shared ${index}`);
          await first.billing.balances.topUp(account.id, 1_000_000, "funds");
          return account.id;
        }),
      );
      const db = first.database as unknown as Kysely<unknown>;
      const deadlocks = async () =>
        Number(
          (
            await sql<{ deadlocks: number | string }>`select deadlocks from pg_stat_database
              where datname = current_database()`.execute(db)
          ).rows[0]?.deadlocks ?? 0,
        );
      const before = await deadlocks();
      const requests = Array.from({ length: 240 }, (_, index) => ({
        services: index % 2 === 0 ? first : second,
        // Each request takes an account from the other end of the list every other time.
        accountId: accounts[(index % 3 === 0 ? index : 7 * index + 3) % accounts.length] as string,
      }));
      const results = await runWithConcurrency(
        requests.map(({ services, accountId }) => async () => {
          const reservation = await services.billing.balances.reserve(accountId, 2_000, null);
          if (reservation === undefined) throw new Error("refused");
          return services.billing.balances.settle(
            reservation,
            1_500,
            usageInput({ accountId, costMicros: 1_500 }),
          );
        }),
        24,
      );
      expect(results.filter((result) => result.status === "rejected")).toEqual([]);
      let charged = 0;
      for (const accountId of accounts) {
        const balance = await first.billing.balances.balanceOf(accountId);
        expect(balance?.reservedMicros).toBe(0);
        charged += 1_000_000 - (balance?.balanceMicros ?? 0);
        expect(await first.billing.balances.ledgerSum(accountId)).toBe(balance?.balanceMicros);
      }
      expect(charged).toBe(240 * 1_500);
      // Statistics reach pg_stat_database when a backend goes idle; a deadlock would also have
      // failed a request above (retried, it would still have waited a second for detection).
      expect(await deadlocks()).toBe(before);
    });
  },
);
