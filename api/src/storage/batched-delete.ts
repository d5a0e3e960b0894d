import { sql } from "kysely";
import type { DatabaseSchema } from "./schema.js";
import type { Database } from "./store.js";

/** How {@link deleteInBatches} goes on between batches. */
export interface BatchedDeleteOptions {
  /** Rows one batch removes at most (each batch is its own statement and transaction). */
  batchSize: number;
  /** Awaited after each full batch (a retention job's pause); resolves false to stop early. */
  between: () => Promise<boolean>;
  /** Batches one call runs at most; unbounded when absent. */
  maxBatches?: number;
  /** Told the rows of each batch that removed any, as it commits. */
  onBatch?: (rows: number) => void;
}

/** What {@link deleteInBatches} removed. */
export interface BatchedDeleteResult {
  /** Rows removed. */
  rows: number;
  /** Batches that removed rows. */
  batches: number;
  /** True when rows may be left: `maxBatches` or a stop by `between` ended it. */
  unfinished: boolean;
}

/**
 * Deletes in batches: calls `removeBatch(batchSize)` (which deletes at most
 * that many rows and says how many it did) until a batch removes fewer,
 * `between` says stop, or `maxBatches` is reached. Batches that committed
 * stay when a later one throws.
 *
 * @throws whatever `removeBatch` throws
 */
export async function deleteInBatches(
  removeBatch: (limit: number) => Promise<number | bigint>,
  options: BatchedDeleteOptions,
): Promise<BatchedDeleteResult> {
  const result: BatchedDeleteResult = { rows: 0, batches: 0, unfinished: false };
  for (let batch = 1; ; batch += 1) {
    const removed = Number(await removeBatch(options.batchSize));
    if (removed > 0) {
      result.rows += removed;
      result.batches += 1;
      options.onBatch?.(removed);
    }
    if (removed < options.batchSize) return result;
    const bounded = options.maxBatches !== undefined && batch >= options.maxBatches;
    if (bounded || !(await options.between())) {
      result.unfinished = true;
      return result;
    }
  }
}

/**
 * One batch of {@link deleteInBatches} for rows that age out by one column:
 * deletes at most `limit` rows of `table` whose `column` sorts before
 * `before` (ISO 8601 text, as the store keeps times), oldest first, picked
 * by the primary key `key` (one statement on SQLite and PostgreSQL alike).
 *
 * @returns the rows deleted
 */
export function deleteOldest<T extends keyof DatabaseSchema & string>(
  database: Database,
  table: T,
  key: keyof DatabaseSchema[T] & string,
  column: keyof DatabaseSchema[T] & string,
  before: string,
): (limit: number) => Promise<bigint> {
  return async (limit) => {
    const result = await sql`delete from ${sql.table(table)} where ${sql.ref(key)} in (
      select ${sql.ref(key)} from ${sql.table(table)}
      where ${sql.ref(column)} < ${before} order by ${sql.ref(column)} limit ${limit})`.execute(
      database,
    );
    return result.numAffectedRows ?? 0n;
  };
}
