import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import { CARRIED_FORWARD_KIND } from "../src/usage/carried-forward.js";
import { UsageRetention } from "../src/usage/usage-retention.js";
import { describeEachDialect, writeOlderDatabase } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";
import {
  bigintsAsNumbers,
  insertFundedAccount,
  ledgerSumsByDay,
  readDailyTotals,
  writeChargedUsage,
} from "./support/usage-ledger.js";

// Migration 0017 (WAL per request): a request's charge is
// written on its usage row (`charged_micros`) instead of in a `charge`
// entry. A database with charge entries from before keeps them; the ledger
// (entries, ledger sum, daily sums) counts both kinds, settlements and
// reversals after the migration keep "ledger sum = balance", and retention
// folds both into the months' carried-forward entries.

const TODAY = new Date().toISOString().slice(0, 10);

await describeEachDialect("migration 0017: charges on usage rows", (database) => {
  let services: Services | undefined;
  const accountId = randomUUID();
  const legacy: string[] = [];
  let totalsBefore: unknown;

  beforeAll(async () => {
    // A database at 0016 whose account paid two requests: each charge a `charge` entry.
    await writeOlderDatabase(database, "0017", async (raw) => {
      await insertFundedAccount(raw, {
        id: accountId,
        name: "Before usage charges",
        createdAt: `${TODAY}T00:00:00.000Z`,
        balanceMicros: 100_000,
      });
      for (const cost of [1_000, 2_500]) {
        legacy.push(
          await writeChargedUsage(
            raw,
            { accountId, costMicros: cost },
            `${TODAY}T00:00:0${legacy.length + 1}.000Z`,
            { chargeEntry: true },
          ),
        );
      }
      totalsBefore = await readDailyTotals(raw);
    });
    services = await openStore(database.url);
  });
  afterAll(() => closeStore(services));

  /** A served request settled through the store; returns its usage row's ID. */
  async function settle(costMicros: number, requestId: string | null = null): Promise<string> {
    if (services === undefined) throw new Error("no store");
    const { balances } = services.billing;
    const reservation = await balances.reserve(accountId, 1_000, requestId);
    if (reservation === undefined) throw new Error("not reserved");
    const settled = await balances.settle(reservation, costMicros, {
      accountId,
      apiKeyId: null,
      personaId: null,
      endpoint: "generate",
      status: 200,
      inputTokens: 2,
      outputTokens: 3,
      costMicros: 0,
      requestId,
      paymentMethod: "balance",
      paymentReference: null,
    });
    expect(settled.chargedMicros).toBe(costMicros);
    return settled.usageId;
  }

  it("keeps the charge entries written before, and writes no new ones", async () => {
    if (services === undefined) throw new Error("no store");
    const { balances } = services.billing;
    // The migration leaves the ledger and its daily sums as they were.
    expect(await readDailyTotals(services.database)).toEqual(totalsBefore);
    expect(await balances.ledgerSum(accountId)).toBe(96_500);
    expect(await balances.balanceOf(accountId)).toMatchObject({ balanceMicros: 96_500 });

    // Settlements after it: the charge is on the usage row.
    const settled = [await settle(700), await settle(300)];
    const chargeEntries = await services.database
      .selectFrom("balance_entries")
      .select(["usage_id"])
      .where("kind", "=", "charge")
      .execute();
    expect(chargeEntries.map((entry) => entry.usage_id).sort()).toEqual([...legacy].sort());
    const charged = await services.database
      .selectFrom("usage_records")
      .select(["id", "cost_micros", "charged_micros"])
      .where("charged_micros", ">", 0)
      .orderBy("created_at")
      .execute();
    expect(bigintsAsNumbers(charged)).toEqual([
      { id: settled[0], cost_micros: 700, charged_micros: 700 },
      { id: settled[1], cost_micros: 300, charged_micros: 300 },
    ]);

    expect(await balances.balanceOf(accountId)).toMatchObject({
      balanceMicros: 95_500,
      reservedMicros: 0,
    });
    expect(await balances.ledgerSum(accountId)).toBe(95_500);
    const entries = await balances.entries(accountId);
    expect(entries.map((entry) => [entry.kind, entry.amountMicros, entry.usageId])).toEqual([
      ["topup", 100_000, null],
      ["charge", -1_000, legacy[0]],
      ["charge", -2_500, legacy[1]],
      ["charge", -700, settled[0]],
      ["charge", -300, settled[1]],
    ]);
    expect((await readDailyTotals(services.database, { nonZero: true })).ledger).toEqual(
      await ledgerSumsByDay(services.database),
    );
  });

  it("reverses a settlement: the cost goes, the charge stays and an adjustment gives it back", async () => {
    if (services === undefined) throw new Error("no store");
    const { balances } = services.billing;
    const usageId = await settle(400, "lost");
    expect(await balances.reverseSettlement(usageId, 503)).toBe(400);
    expect(await balances.balanceOf(accountId)).toMatchObject({ balanceMicros: 95_500 });
    expect(await balances.ledgerSum(accountId)).toBe(95_500);
    const [row] = await services.usage.findByRequestIds(["lost"]);
    expect(row).toMatchObject({ status: 503, costMicros: 0 });
    const entries = await balances.entries(accountId);
    expect(entries.slice(-2).map((entry) => [entry.kind, entry.amountMicros])).toEqual([
      ["charge", -400],
      ["adjustment", 400],
    ]);
    expect((await readDailyTotals(services.database, { nonZero: true })).ledger).toEqual(
      await ledgerSumsByDay(services.database),
    );
  });

  it("retention folds both kinds of charge into the carried-forward entry, ledger sum and totals unchanged", async () => {
    if (services === undefined) throw new Error("no store");
    const { balances } = services.billing;
    const totals = await readDailyTotals(services.database);
    const retention = new UsageRetention(services.store, {
      days: 1,
      batchSize: 2,
      pauseMs: 0,
      intervalMs: 60_000,
    });
    const later = new Date(Date.now() + 3 * 86_400_000);
    const preview = await retention.preview(later);
    // Entries: the top-up, two charge entries, the adjustment; usage rows' charges: 700, 300, 400.
    expect(preview.ledgerEntries).toBe(7);
    const report = await retention.run(later);
    expect(report.skipped).toBeUndefined();
    expect(report.ledgerEntriesRolledUp).toBe(7);
    expect(report.usageRowsRemoved).toBe(5);
    expect(await services.database.selectFrom("usage_records").select("id").execute()).toEqual([]);
    const left = await services.database
      .selectFrom("balance_entries")
      .select(["kind", "amount_micros"])
      .execute();
    expect(bigintsAsNumbers(left)).toEqual([{ kind: CARRIED_FORWARD_KIND, amount_micros: 95_500 }]);
    expect(await balances.ledgerSum(accountId)).toBe(95_500);
    expect(await balances.balanceOf(accountId)).toMatchObject({ balanceMicros: 95_500 });
    expect(await readDailyTotals(services.database)).toEqual(totals);
  });
});
