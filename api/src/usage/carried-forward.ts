import { sql } from "kysely";
import type { BalanceEntryKind } from "../billing/billing-tables.js";
import type { Database } from "../storage/store.js";

/**
 * The ledger kind of the one entry per account and month that stands for
 * the entries (and usage rows' charges) retention removed, so every
 * account's ledger still sums to its balance.
 */
export const CARRIED_FORWARD_KIND = "carried_forward" satisfies BalanceEntryKind;

/** The ID of the carried-forward ledger entry of an account and month (`YYYY-MM`). */
export function carriedForwardId(accountId: string, month: string): string {
  return `carried-forward:${month}:${accountId}`;
}

/** Amounts to carry forward (micro-units, signed), by `carried_forward` entry ID. */
export type CarriedSums = Map<string, { accountId: string; month: string; micros: number }>;

/**
 * Adds an amount of `accountId` to its month's sum.
 *
 * @param createdAt - ISO 8601 UTC, or the month itself (`YYYY-MM`)
 * @param micros - signed micro-units (a charge taken out is negative)
 */
export function carry(
  sums: CarriedSums,
  accountId: string,
  createdAt: string,
  micros: number,
): void {
  const month = createdAt.slice(0, 7);
  const key = carriedForwardId(accountId, month);
  const sum = sums.get(key) ?? { accountId, month, micros: 0 };
  sum.micros += micros;
  sums.set(key, sum);
}

/**
 * Adds each sum to its month's `carried_forward` entry (made when missing,
 * dated the month's first instant), inside the caller's transaction.
 */
export async function carryForward(transaction: Database, sums: CarriedSums): Promise<void> {
  for (const [id, sum] of sums) {
    await transaction
      .insertInto("balance_entries")
      .values({
        id,
        account_id: sum.accountId,
        kind: CARRIED_FORWARD_KIND,
        amount_micros: sum.micros,
        usage_id: null,
        note: `entries of ${sum.month} carried forward by usage retention`,
        created_at: `${sum.month}-01T00:00:00.000Z`,
      })
      .onConflict((conflict) =>
        conflict.column("id").doUpdateSet({
          amount_micros: sql`balance_entries.amount_micros + excluded.amount_micros`,
        }),
      )
      .execute();
  }
}
