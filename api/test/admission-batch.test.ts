import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { usageRow } from "../src/billing/usage-store.js";
import type { Services } from "../src/services.js";
import { deadlineIn } from "../src/storage/deadline.js";
import type { AdmitOutcome } from "../src/storage/ledger.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";
import { refusedUsage } from "./support/usage-ledger.js";

// Concurrent admissions decided together (issue 27: on PostgreSQL one
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
