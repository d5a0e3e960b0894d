import { sql } from "kysely";
import { deleteInBatches, deleteOldest } from "../storage/batched-delete.js";
import type { Database } from "../storage/store.js";

/**
 * How many x402 payment rows (`x402_payments`) were created before
 * `cutoff`: what the next retention run removes.
 *
 * @param cutoff - ISO 8601 UTC (the retention cutoff)
 */
export async function countPaymentsBefore(database: Database, cutoff: string): Promise<number> {
  const row = await database
    .selectFrom("x402_payments")
    .select(sql<number>`count(*)`.as("rows"))
    .where("created_at", "<", cutoff)
    .executeTakeFirst();
  return Number(row?.rows ?? 0);
}

/**
 * Removes the x402 payment rows created before `cutoff`, oldest first, at
 * most `batchSize` per statement (each one short transaction, reading the
 * index `x402_payments_created_at`, migration 0024), calling `between`
 * after each batch. A row only guards against its payment being used
 * twice; the gate refuses an authorization valid for longer than rows are
 * kept (`X402Options.maxValidSeconds`), so a payment whose row is gone has
 * expired and is refused by its validity window if presented again. The
 * request's usage row (payment method `x402`, the settlement's transaction
 * in `payment_reference`) is what records the sale.
 *
 * @param cutoff - ISO 8601 UTC (the retention cutoff)
 * @param between - awaited after a batch that removed rows (the job's
 *   pause); resolves false to stop early
 * @returns the rows removed and the batches that removed them
 * @throws the store's error; batches already committed stay (a re-run goes on)
 */
export async function removePaymentsBefore(
  database: Database,
  cutoff: string,
  batchSize: number,
  between: () => Promise<boolean>,
): Promise<{ rows: number; batches: number }> {
  const remove = deleteOldest(database, "x402_payments", "id", "created_at", cutoff);
  const { rows, batches } = await deleteInBatches(remove, { batchSize, between });
  return { rows, batches };
}
