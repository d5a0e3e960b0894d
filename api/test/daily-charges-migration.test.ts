import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import type { Database } from "../src/storage/store.js";
import { readUsageSummary } from "../src/usage/usage-summary.js";
import { describeEachDialect, writeOlderDatabase } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";
import {
  bigintsAsNumbers,
  insertFundedAccount,
  ledgerSumsByDay,
  readDailyTotals,
  writeChargedUsage,
} from "./support/usage-ledger.js";

// Migration 0019 (WAL per request): a usage row's charge is
// summed in its own daily-totals row (`usage_daily_totals.charged_micros`)
// instead of in `balance_daily_totals`. Charges counted there before stay
// there; the day's ledger sum (balance_daily_totals less the usage totals'
// charges) stays exact through new rows, late charges and deletes of rows
// from either side of the upgrade, and the /usage balance course walks back
// by it.

const NOW = Date.now();
const TODAY = new Date(NOW).toISOString().slice(0, 10);
const YESTERDAY = new Date(NOW - 86_400_000).toISOString().slice(0, 10);

/** `balance_daily_totals` and the usage totals' charges of one account, by day. */
async function sidesOf(database: Database, accountId: string) {
  const entries = await database
    .selectFrom("balance_daily_totals")
    .select(["day", "amount_micros"])
    .where("account_id", "=", accountId)
    .orderBy("day")
    .execute();
  const charges = await database
    .selectFrom("usage_daily_totals")
    .select(["day", "persona_id", "charged_micros"])
    .where("account_id", "=", accountId)
    .orderBy("day")
    .orderBy("persona_id")
    .execute();
  return bigintsAsNumbers({ entries, charges });
}

await describeEachDialect("migration 0019: charges in the usage totals", (database) => {
  let services: Services | undefined;
  const accountId = randomUUID();
  const personaId = randomUUID();
  let older = "";

  const db = () => (services as Services).database;

  beforeAll(async () => {
    // A database at 0018 whose account paid one request yesterday (charge summed in balance_daily_totals).
    await writeOlderDatabase(database, "0019", async (raw) => {
      await insertFundedAccount(raw, {
        id: accountId,
        name: "Before 0019",
        createdAt: `${YESTERDAY}T00:00:00.000Z`,
        balanceMicros: 100_000,
      });
      older = await writeChargedUsage(
        raw,
        { accountId, costMicros: 4_000 },
        `${YESTERDAY}T10:00:00.000Z`,
      );
    });
    services = await openStore(database.url);
  });

  afterAll(async () => {
    if (services !== undefined) await closeStore(services);
  });

  it("leaves the charges counted before where they are: nothing moves on upgrade", async () => {
    expect(await sidesOf(db(), accountId)).toEqual({
      entries: [{ day: YESTERDAY, amount_micros: 96_000 }],
      charges: [{ day: YESTERDAY, persona_id: "", charged_micros: 0 }],
    });
    expect((await readDailyTotals(db(), { nonZero: true })).ledger).toEqual(
      await ledgerSumsByDay(db()),
    );
  });

  it("sums a new row's charge in its usage totals row, not in balance_daily_totals", async () => {
    await writeChargedUsage(
      db(),
      { accountId, personaId, costMicros: 2_500 },
      `${TODAY}T08:00:00.000Z`,
    );
    await writeChargedUsage(
      db(),
      { accountId, personaId, costMicros: 500 },
      `${TODAY}T09:00:00.000Z`,
    );
    expect(await sidesOf(db(), accountId)).toEqual({
      entries: [{ day: YESTERDAY, amount_micros: 96_000 }],
      charges: [
        { day: YESTERDAY, persona_id: "", charged_micros: 0 },
        { day: TODAY, persona_id: personaId, charged_micros: 3_000 },
      ],
    });
    expect((await readDailyTotals(db(), { nonZero: true })).ledger).toEqual(
      await ledgerSumsByDay(db()),
    );
  });

  it("keeps the day's sum exact when an older row's charge changes or the row goes", async () => {
    // A late charge on the row from before the upgrade, then its removal (not by retention).
    await db()
      .updateTable("usage_records")
      .set({ charged_micros: 5_000, cost_micros: 5_000 })
      .where("id", "=", older)
      .execute();
    expect((await readDailyTotals(db(), { nonZero: true })).ledger).toEqual(
      await ledgerSumsByDay(db()),
    );
    await db().deleteFrom("usage_records").where("id", "=", older).execute();
    expect((await readDailyTotals(db(), { nonZero: true })).ledger).toEqual(
      await ledgerSumsByDay(db()),
    );
    // Yesterday's ledger is now the top-up alone: −4,000 counted before, +4,000 on the usage side.
    expect(await ledgerSumsByDay(db())).toContainEqual({
      account_id: accountId,
      day: YESTERDAY,
      amount_micros: 100_000,
    });
  });

  it("walks the /usage balance course back by both sides", async () => {
    const account = await db()
      .selectFrom("accounts")
      .select("balance_micros")
      .where("id", "=", accountId)
      .executeTakeFirstOrThrow();
    const summary = await readUsageSummary(db(), accountId, NOW);
    const course = new Map(summary?.balanceCourse.map((point) => [point.day, point.balanceMicros]));
    const balance = Number(account.balance_micros);
    expect(course.get(TODAY)).toBe(balance);
    // The end of yesterday: the balance now less today's charges (3,000 taken today).
    expect(course.get(YESTERDAY)).toBe(balance + 3_000);
    expect(summary?.lines.map((line) => [line.day, line.personaId, line.costMicros])).toEqual([
      [TODAY, personaId, 3_000],
    ]);
  });
});
