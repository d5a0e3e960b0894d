import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import { deadlineIn } from "../src/storage/deadline.js";
import type { AdmitOutcome } from "../src/storage/ledger.js";
import { usageRow } from "../src/usage/usage-record.js";
import {
  createTestDatabase,
  describeEachDialect,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";
import { refusedUsage } from "./support/usage-ledger.js";

// Concurrent admissions decided together (on PostgreSQL one
// statement per batch) answer each request as if it had come alone, in
// order: the counters it saw, a balance never overrun, and a refusal row
// for every refused request.

await describeEachDialect("admissions of concurrent requests", (database) => {
  let services: Services;

  beforeAll(async () => {
    services = await openStore(database.url, { PERSONA_INSTANCE_ID: "batch-suite" });
  });
  afterAll(() => closeStore(services));

  it("lets requests through in order while the windows have room and the balance covers them", async () => {
    const account = await services.accounts.create("Batch");
    await services.billing.balances.topUp(account.id, 4 * 500);
    const bucket = `batch:${randomUUID()}`;
    const now = Date.now();
    const limits = { minute: 6, hour: 100, day: 100 };
    const deadline = deadlineIn(5_000);
    const refusals: string[] = [];
    const outcomes: AdmitOutcome[] = await Promise.all(
      Array.from({ length: 10 }, () => {
        const id = randomUUID();
        refusals.push(id);
        return services.store.ledger.admit(
          {
            rateLimit: { bucket, limits, now },
            hold: services.billing.balances.holdFor(account.id, 500, null, new Date(now)),
            refusalUsage: usageRow(
              id,
              new Date(now).toISOString(),
              refusedUsage({ accountId: account.id }),
            ),
          },
          deadline,
        );
      }),
    );
    const admitted = outcomes.filter((outcome) => outcome.admitted);
    const poor = outcomes.filter(
      (outcome) => !outcome.admitted && outcome.reason === "insufficient_balance",
    );
    const limited = outcomes.filter(
      (outcome) => !outcome.admitted && outcome.reason === "rate_limited",
    );
    expect([admitted.length, poor.length, limited.length]).toEqual([4, 2, 4]);
    // Each counted request saw its own place in the window; the refused ones the full window.
    const seen = [...admitted, ...poor].map((outcome) => outcome.counters?.minute.count).sort();
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    for (const outcome of limited) {
      expect(outcome.counters?.minute).toEqual({ start: now, count: 6 });
      expect(outcome.counters?.hour.count).toBe(6);
    }
    expect(await services.billing.balances.balanceOf(account.id)).toMatchObject({
      balanceMicros: 2_000,
      reservedMicros: 2_000,
    });
    expect(await services.billing.balances.openReservations(account.id)).toBe(4);
    const rows = await services.database
      .selectFrom("usage_records")
      .select(["id", "payment_method"])
      .where("account_id", "=", account.id)
      .execute();
    expect(rows).toHaveLength(6);
    expect(rows.every((row) => refusals.includes(row.id))).toBe(true);
    expect(rows.filter((row) => row.payment_method === "none")).toHaveLength(4);
  });
});

const skipReason = await postgresUnavailable();

/**
 * Calls of the usage table's statement trigger (daily totals) so far, read
 * from a session of its own once every other session of the database has
 * ended: a session's statistics are flushed when it ends, so this is read
 * after the store closed (its backends exit a moment after).
 */
async function dailyTotalsTriggerCalls(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let attempt = 0; ; attempt += 1) {
      const { rows } = await client.query<{ others: string }>(
        "select count(*) as others from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()",
      );
      if (Number(rows[0]?.others) === 0) break;
      if (attempt >= 100) throw new Error("the store's sessions did not end within 5 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { rows } = await client.query<{ calls: string }>(
      "select coalesce(sum(calls), 0) as calls from pg_stat_user_functions where funcname = 'persona_usage_records_daily_insert'",
    );
    return Number(rows[0]?.calls ?? 0);
  } finally {
    await client.end();
  }
}

describe.skipIf(skipReason !== undefined)(
  suiteTitle("admissions without refusals write no usage rows", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(
        `alter database "${new URL(database.url).pathname.slice(1)}" set track_functions = 'all'`,
      );
      await client.end();
    });
    afterAll(() => database.drop());

    /** Admits `count` requests of one fresh account funded for `funded` of them (500 each), in one store. */
    const admitBatch = async (count: number, funded: number) => {
      const services = await openStore(database.url, { PERSONA_INSTANCE_ID: "refusal-rows" });
      try {
        const account = await services.accounts.create("Refusal rows");
        await services.billing.balances.topUp(account.id, funded * 500);
        const now = Date.now();
        const outcomes = await Promise.all(
          Array.from({ length: count }, () =>
            services.store.ledger.admit(
              {
                rateLimit: {
                  bucket: `rows:${account.id}`,
                  limits: { minute: 100, hour: 100, day: 100 },
                  now,
                },
                hold: services.billing.balances.holdFor(account.id, 500, null, new Date(now)),
                refusalUsage: usageRow(
                  randomUUID(),
                  new Date(now).toISOString(),
                  refusedUsage({ accountId: account.id }),
                ),
              },
              deadlineIn(5_000),
            ),
          ),
        );
        const rows = await services.database
          .selectFrom("usage_records")
          .select("status")
          .where("account_id", "=", account.id)
          .execute();
        return {
          admitted: outcomes.filter((outcome) => outcome.admitted).length,
          rows: rows.length,
        };
      } finally {
        await closeStore(services);
      }
    };

    it("runs the usage table's statement trigger only for a batch with refusals", async () => {
      const before = await dailyTotalsTriggerCalls(database.url);
      expect(await admitBatch(5, 5)).toEqual({ admitted: 5, rows: 0 });
      const afterAdmitted = await dailyTotalsTriggerCalls(database.url);
      // No insert into usage_records at all: not even one of no rows.
      expect(afterAdmitted - before).toBe(0);
      expect(await admitBatch(5, 2)).toEqual({ admitted: 2, rows: 3 });
      expect(await dailyTotalsTriggerCalls(database.url)).toBeGreaterThan(afterAdmitted);
    });
  },
);
