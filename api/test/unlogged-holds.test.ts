import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type PrivatePostgres,
  postgresServerBinaries,
  startPrivatePostgres,
} from "../../test-support/private-postgres.mjs";
import { HOLDS_MARKER_TABLE } from "../src/billing/postgres/postgres-reservations.js";
import type { Services } from "../src/services.js";
import type { UsageInput } from "../src/usage/usage-record.js";
import {
  createTestDatabase,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";
import { usageInput } from "./support/usage-ledger.js";

// On PostgreSQL a request's hold is not written to the WAL
// (migration 0016: `balance_reservations` is unlogged). A server crash,
// a promoted replica or a restored backup gives the table back empty —
// PostgreSQL resets every unlogged table to empty at crash recovery, which
// is what `truncate` of the two unlogged tables does here — and the
// sweeper then makes the accounts' reserved sums match the holds left.

const skipReason = await postgresUnavailable();

/** A served request's usage (status 200; the ledger sets the cost charged). */
const served = (accountId: string, requestId: string): UsageInput =>
  usageInput({ accountId, requestId, status: 200, costMicros: 0 });

/** What PostgreSQL's crash recovery does to the unlogged tables. */
async function loseHolds(services: Services): Promise<void> {
  await sql`truncate balance_reservations, ${sql.table(HOLDS_MARKER_TABLE)}`.execute(
    services.database,
  );
}

describe.skipIf(skipReason !== undefined)(
  suiteTitle("holds lost by the database's crash recovery", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    let services: Services;

    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      services = await openStore(database.url, {
        PERSONA_SWEEP_INTERVAL_SECONDS: "1",
        PERSONA_RESERVATION_TTL_SECONDS: "600",
      });
    });
    afterAll(async () => {
      await closeStore(services);
      await database.drop();
    });

    it("keeps the holds and their marker out of the WAL (unlogged), the accounts in it", async () => {
      const persistence = await sql<{ relname: string; relpersistence: string }>`
        select relname, relpersistence from pg_class
        where relname in ('balance_reservations', ${HOLDS_MARKER_TABLE}, 'accounts')
        order by relname`.execute(services.database);
      expect(persistence.rows).toEqual([
        { relname: "accounts", relpersistence: "p" },
        { relname: "balance_reservations", relpersistence: "u" },
        { relname: HOLDS_MARKER_TABLE, relpersistence: "u" },
      ]);
    });

    it("sets reserved sums to the holds left, keeps a hold made since, and settles a lost hold as a swept one", async () => {
      const { balances } = services.billing;
      const account = await services.accounts.create("Lost holds");
      await balances.topUp(account.id, 10_000, "funds");
      const lost = await balances.reserve(account.id, 4_000, "lost");
      expect(lost).toBeDefined();
      expect(await balances.reconcileLostHolds()).toBe(0); // nothing lost yet

      await loseHolds(services);
      // Until reconciled, the lost hold still lowers what the account may spend.
      expect(await balances.reserve(account.id, 6_500, "too-much")).toBeUndefined();
      const since = await balances.reserve(account.id, 1_000, "since");
      expect(since).toBeDefined();
      expect((await balances.balanceOf(account.id))?.reservedMicros).toBe(5_000);

      expect(await balances.reconcileLostHolds()).toBe(1);
      expect((await balances.balanceOf(account.id))?.reservedMicros).toBe(1_000);
      expect(await balances.reconcileLostHolds()).toBe(0); // the marker is back

      // The request whose hold was lost is charged only while the balance covers it.
      const late = await balances.settle(
        lost as NonNullable<typeof lost>,
        3_000,
        served(account.id, "lost"),
      );
      expect(late.chargedMicros).toBe(3_000);
      const kept = await balances.settle(
        since as NonNullable<typeof since>,
        500,
        served(account.id, "since"),
      );
      expect(kept.chargedMicros).toBe(500);
      expect(await balances.balanceOf(account.id)).toEqual({
        currency: "USD",
        balanceMicros: 6_500,
        reservedMicros: 0,
      });
      expect(await balances.ledgerSum(account.id)).toBe(6_500);
    });

    it("the sweeper corrects the reserved sums within its interval", async () => {
      const { balances } = services.billing;
      const account = await services.accounts.create("Swept holds");
      await balances.topUp(account.id, 10_000, "funds");
      expect(await balances.reserve(account.id, 2_500, "in-flight")).toBeDefined();
      await loseHolds(services);
      await services.billing.startSweeper();
      const deadline = Date.now() + 5_000;
      let reserved = (await balances.balanceOf(account.id))?.reservedMicros;
      while (reserved !== 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        reserved = (await balances.balanceOf(account.id))?.reservedMicros;
      }
      expect(reserved).toBe(0);
      expect(await balances.openReservations(account.id)).toBe(0);
    });
  },
);

// The same with the real thing: a PostgreSQL cluster of this test's own,
// crashed (a backend killed with SIGKILL, so the postmaster ends every
// process and runs crash recovery), then the service opened on it again.
describe.skipIf(postgresServerBinaries() === undefined)(
  "holds lost by a real crash of a PostgreSQL server of the test's own",
  () => {
    let directory: string;
    let cluster: PrivatePostgres;

    beforeAll(async () => {
      directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-crash-pg-"));
      cluster = await startPrivatePostgres(directory);
      await cluster.admin.query("create database persona_crash");
    }, 60_000);
    afterAll(async () => {
      await cluster?.stop();
      fs.rmSync(directory, { recursive: true, force: true });
    });

    it("comes back with the holds and the marker gone, the reserved sum kept, and corrects it", async () => {
      const url = cluster.databaseUrl("persona_crash");
      let services = await openStore(url);
      let accountId: string;
      try {
        const { balances } = services.billing;
        accountId = (await services.accounts.create("Crashed server")).id;
        await balances.topUp(accountId, 10_000, "funds");
        expect(await balances.reserve(accountId, 4_000, "in-flight")).toBeDefined();
        // Admissions commit without waiting for the WAL flush; a durable commit flushes it.
        await balances.topUp(accountId, 1, "a durable commit after the hold");
      } finally {
        await closeStore(services);
      }

      await cluster.crash();

      services = await openStore(url);
      try {
        const { balances } = services.billing;
        const left = await sql<{ holds: number; markers: number }>`select
          (select count(*)::int from balance_reservations) as holds,
          (select count(*)::int from ${sql.table(HOLDS_MARKER_TABLE)}) as markers`.execute(
          services.database,
        );
        expect(left.rows).toEqual([{ holds: 0, markers: 0 }]);
        expect((await balances.balanceOf(accountId))?.reservedMicros).toBe(4_000);
        expect(await balances.reconcileLostHolds()).toBe(1);
        expect(await balances.balanceOf(accountId)).toEqual({
          currency: "USD",
          balanceMicros: 10_001,
          reservedMicros: 0,
        });
        expect(await balances.ledgerSum(accountId)).toBe(10_001);
      } finally {
        await closeStore(services);
      }
    }, 60_000);
  },
);
