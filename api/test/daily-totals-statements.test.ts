import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import { CARRIED_FORWARD_KIND } from "../src/usage/carried-forward.js";
import { usageRow } from "../src/usage/usage-record.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";
import { bigintsAsNumbers, ledgerSumsByDay, readDailyTotals } from "./support/usage-ledger.js";

// The daily totals stay exactly the sums of the rows when one statement
// writes many rows (on PostgreSQL the totals are kept per
// statement, migration 0014): multi-row inserts, updates that move rows
// between days and personas, deletes; retention's deletes leave them.
// The ledger's sums count both kinds of charge: `charge` entries (before
// migration 0017) and usage rows' `charged_micros` (since).

/** The daily totals kept, leaving out the rows that went back to 0 (a sum never has them). */
const totals = (services: Services) => readDailyTotals(services.database, { nonZero: true });

/** The same figures summed from the rows themselves. */
async function sums(services: Services) {
  const usage = await sql<
    Record<string, unknown>
  >`select account_id, substr(created_at, 1, 10) as day,
      coalesce(persona_id, '') as persona_id, endpoint, count(*) as requests,
      sum(case when status = 200 then 1 else 0 end) as served, sum(input_tokens) as input_tokens,
      sum(output_tokens) as output_tokens, sum(cost_micros) as cost_micros
    from usage_records group by 1, 2, 3, 4 order by 1, 2, 3, 4`.execute(services.database);
  return { usage: bigintsAsNumbers(usage.rows), ledger: await ledgerSumsByDay(services.database) };
}

await describeEachDialect("daily totals of multi-row statements", (database) => {
  let services: Services;
  let customers: StoreCustomer[];

  beforeAll(async () => {
    services = await openStore(database.url, { PERSONA_INSTANCE_ID: "totals-suite" });
    customers = [
      await createCustomer(services, { balanceMicros: 0 }),
      await createCustomer(services, { balanceMicros: 0 }),
    ];
  });
  afterAll(() => closeStore(services));

  it("keeps the totals equal to the sums through inserts, updates and deletes of many rows at once", async () => {
    const rows = Array.from({ length: 60 }, (_unused, index) => {
      const customer = customers[index % 2] as StoreCustomer;
      const row = usageRow(
        randomUUID(),
        `2026-11-${String(10 + (index % 3)).padStart(2, "0")}T0${index % 10}:00:00.000Z`,
        {
          accountId: customer.accountId,
          apiKeyId: customer.keyId,
          personaId: index % 5 === 0 ? null : customer.persona.id,
          endpoint: index % 4 === 0 ? "personify" : "generate",
          status: index % 7 === 0 ? 429 : 200,
          inputTokens: index,
          outputTokens: 2 * index,
          costMicros: index % 7 === 0 ? 0 : 1_000 + index,
          requestId: null,
          paymentMethod: "balance",
          paymentReference: null,
        },
      );
      return { ...row, charged_micros: index % 3 === 0 ? row.cost_micros : 0 };
    });
    await services.database.insertInto("usage_records").values(rows).execute();
    await services.database
      .insertInto("balance_entries")
      .values(
        rows.map((row, index) => ({
          id: randomUUID(),
          account_id: row.account_id,
          kind: index % 11 === 0 ? CARRIED_FORWARD_KIND : "charge",
          amount_micros: -row.cost_micros - 1,
          usage_id: row.id,
          note: null,
          created_at: row.created_at,
        })),
      )
      .execute();
    expect(await totals(services)).toEqual(await sums(services));

    // Many rows change at once: cost, status, day and persona.
    await services.database
      .updateTable("usage_records")
      .set((eb) => ({
        cost_micros: eb("cost_micros", "*", 2),
        charged_micros: eb("charged_micros", "*", 2),
        status: 200,
        created_at: sql<string>`replace(created_at, '2026-11-1', '2026-11-2')`,
      }))
      .where("input_tokens", "<", 30)
      .execute();
    await services.database
      .updateTable("usage_records")
      .set({ persona_id: null })
      .where("input_tokens", ">", 50)
      .execute();
    // A charge made late (a row without one gets it), and a reversal (the cost goes, the charge stays).
    await services.database
      .updateTable("usage_records")
      .set((eb) => ({ charged_micros: eb.ref("cost_micros") }))
      .where("input_tokens", "in", [31, 32, 34])
      .execute();
    await services.database
      .updateTable("usage_records")
      .set({ cost_micros: 0, status: 503 })
      .where("input_tokens", "in", [33, 36, 39])
      .execute();
    await services.database
      .updateTable("balance_entries")
      .set((eb) => ({
        amount_micros: eb("amount_micros", "-", 5),
        created_at: sql<string>`replace(created_at, '2026-11-1', '2026-11-0')`,
      }))
      .where("amount_micros", "<", -1_030)
      .execute();
    expect(await totals(services)).toEqual(await sums(services));

    // Deletes that are not retention's take the rows out.
    await services.database
      .deleteFrom("balance_entries")
      .where("amount_micros", "<", -1_050)
      .execute();
    await services.database
      .deleteFrom("usage_records")
      .where("input_tokens", ">", 45)
      .where(
        "id",
        "not in",
        services.database
          .selectFrom("balance_entries")
          .select("usage_id")
          .where("usage_id", "is not", null)
          .$castTo<string>(),
      )
      .execute();
    expect(await totals(services)).toEqual(await sums(services));
  });

  it("leaves the totals as they were when retention deletes rows older than its cutoff", async () => {
    const before = await totals(services);
    await services.database
      .insertInto("retention_cutoff")
      .values({ id: 1, cutoff: "2026-11-30T00:00:00.000Z" })
      .execute();
    await services.database.deleteFrom("balance_entries").execute();
    await services.database.deleteFrom("usage_records").execute();
    expect(await totals(services)).toEqual(before);
  });
});
