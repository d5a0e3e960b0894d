import { type Kysely, sql } from "kysely";

/**
 * PostgreSQL's monthly partitions of `usage_records` ("usage rows partitioned by month with declarative
 * partitioning, so retention drops a partition instead of deleting rows").
 * Migration `0013_usage_partitions` makes the table partitioned by range of
 * `created_at` (ISO 8601 UTC text: `'2026-11-01T00:00:00.000Z'` ≤ row <
 * `'2026-12-01T00:00:00.000Z'` is November's partition); this module names,
 * lists and creates the partitions. SQLite has no partitions: none of this
 * runs there.
 */

/** The partition that takes a row whose month has no partition (so an insert never fails). */
export const USAGE_DEFAULT_PARTITION = "usage_records_default";

/** Months made ahead of the current one, at start-up and by every retention run. */
export const PARTITION_MONTHS_AHEAD = 2;

/** Milliseconds a partition's create or drop waits for its lock on `usage_records` before it tries again later. */
export const PARTITION_LOCK_TIMEOUT_MS = 200;

const MONTH = /^(\d{4})-(\d{2})$/u;

/** One partition of `usage_records`. */
export interface UsagePartition {
  /** `usage_records_2026_11`, or {@link USAGE_DEFAULT_PARTITION}. */
  name: string;
  /** Lower bound (included), ISO 8601 UTC; null for the default partition. */
  from: string | null;
  /** Upper bound (excluded), ISO 8601 UTC; null for the default partition. */
  to: string | null;
}

/** PostgreSQL: one monthly partition of `usage_records` (migration 0013), or its default partition, as `persona-admin storage stats` shows it. */
export interface PartitionStats {
  /** `usage_records_2026_11`, or `usage_records_default`. */
  partition: string;
  /** Bounds, ISO 8601 UTC (`to` excluded); null for the default partition. */
  from: string | null;
  to: string | null;
  rows: number;
  /** With indexes and TOAST (`pg_total_relation_size`). */
  bytes: number;
  /** True when the next retention run drops it whole (it is wholly older than the cutoff). */
  dropsNext: boolean;
}

/** The month (`YYYY-MM`, UTC) of a date or ISO 8601 UTC timestamp, `offset` months later. */
export function monthOf(date: Date | string, offset = 0): string {
  const at = typeof date === "string" ? new Date(date) : date;
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1))
    .toISOString()
    .slice(0, 7);
}

/**
 * The partition of a month: its name and bounds.
 *
 * @param month - `YYYY-MM` (UTC)
 * @throws {RangeError} when `month` is not `YYYY-MM`
 */
export function monthPartition(month: string): UsagePartition & { from: string; to: string } {
  const match = MONTH.exec(month);
  if (match === null) throw new RangeError(`not a month (YYYY-MM): ${month}`);
  const from = `${month}-01T00:00:00.000Z`;
  return {
    name: `usage_records_${match[1]}_${match[2]}`,
    from,
    to: `${monthOf(from, 1)}-01T00:00:00.000Z`,
  };
}

/** The months from `first` to `last` (`YYYY-MM`, both included), in order. */
export function monthsBetween(first: string, last: string): string[] {
  const months: string[] = [];
  for (let month = first; month <= last; month = monthOf(`${month}-01T00:00:00.000Z`, 1)) {
    months.push(month);
  }
  return months;
}

/** The current month of `now` and the {@link PARTITION_MONTHS_AHEAD} after it. */
export function monthsAhead(now: Date = new Date()): string[] {
  return monthsBetween(monthOf(now), monthOf(now, PARTITION_MONTHS_AHEAD));
}

/** True when `usage_records` is a partitioned table (PostgreSQL after migration 0013). */
export async function usagePartitioned<Schema>(database: Kysely<Schema>): Promise<boolean> {
  const { rows } = await sql<{ kind: string }>`select c.relkind as kind from pg_class c
    where c.oid = to_regclass('usage_records')`.execute(database);
  return rows[0]?.kind === "p";
}

const BOUNDS = /FROM \('([^']*)'\) TO \('([^']*)'\)/u;

/** The partitions of `usage_records`, the monthly ones oldest first, then the default one. */
export async function usagePartitions<Schema>(database: Kysely<Schema>): Promise<UsagePartition[]> {
  const { rows } = await sql<{ name: string; bound: string }>`select c.relname as name,
      pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass('usage_records')`.execute(database);
  const partitions = rows.map((row): UsagePartition => {
    const bounds = BOUNDS.exec(row.bound);
    return { name: row.name, from: bounds?.[1] ?? null, to: bounds?.[2] ?? null };
  });
  return partitions.sort((a, b) =>
    a.from === null ? 1 : b.from === null ? -1 : a.from.localeCompare(b.from),
  );
}

/** `create table if not exists` of a month's partition, in the caller's transaction. */
export async function createMonthPartition<Schema>(
  database: Kysely<Schema>,
  month: string,
): Promise<void> {
  const partition = monthPartition(month);
  await sql`create table if not exists ${sql.table(partition.name)} partition of usage_records
    for values from (${sql.lit(partition.from)}) to (${sql.lit(partition.to)})`.execute(database);
}

/**
 * PostgreSQL's codes of a create that lost a race or its lock, left for the
 * next run: `55P03` lock not had in time, `42P07` / `23505` made meanwhile by
 * another session, `23514` a row of the month went to the default partition
 * meanwhile.
 */
const TRY_LATER = new Set(["55P03", "42P07", "23505", "23514"]);

/**
 * Creates the monthly partitions of `months` that do not exist yet
 * (`create table … partition of usage_records`), each in a transaction of
 * its own that waits at most {@link PARTITION_LOCK_TIMEOUT_MS} for its lock
 * (creating a partition locks `usage_records` for a moment, and checks the
 * default partition holds no row of the month). A month whose rows already
 * went to the default partition is left there (its rows are removed by
 * batched deletes; moving them would count them twice in the daily
 * totals), as is a month whose lock was not had in time (the next run makes
 * it). Idempotent.
 *
 * @param months - `YYYY-MM` each
 * @returns the names of the partitions created
 * @throws the database's error, but for the cases left for later
 */
export async function ensureUsagePartitions<Schema>(
  database: Kysely<Schema>,
  months: readonly string[],
): Promise<string[]> {
  const existing = new Set((await usagePartitions(database)).map((partition) => partition.name));
  const created: string[] = [];
  for (const month of months) {
    const partition = monthPartition(month);
    if (existing.has(partition.name)) continue;
    try {
      const made = await database.transaction().execute(async (transaction) => {
        await sql.raw(`set local lock_timeout = ${PARTITION_LOCK_TIMEOUT_MS}`).execute(transaction);
        const stray = await sql<{ found: boolean }>`select exists (select 1 from ${sql.table(
          USAGE_DEFAULT_PARTITION,
        )} where created_at >= ${partition.from} and created_at < ${partition.to}) as found`.execute(
          transaction,
        );
        if (stray.rows[0]?.found === true) return false;
        await createMonthPartition(transaction, month);
        return true;
      });
      if (made) created.push(partition.name);
    } catch (error) {
      if (!TRY_LATER.has(String((error as { code?: unknown }).code))) throw error;
    }
  }
  return created;
}
