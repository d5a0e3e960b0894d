import { sql } from "kysely";
import type { Database } from "../../storage/store.js";
import { type CarriedSums, carry, carryForward } from "../carried-forward.js";
import type { RetentionDialect } from "../retention-dialect.js";
import type { RetentionRun } from "../retention-run.js";
import {
  ensureUsagePartitions,
  monthsAhead,
  PARTITION_LOCK_TIMEOUT_MS,
  type PartitionStats,
  type UsagePartition,
  usagePartitioned,
  usagePartitions,
} from "../usage-partitions.js";

/** Key of the PostgreSQL advisory lock that one retention run holds ("persona-retention"). */
export const RETENTION_LOCK_KEY = 7_302_026_026;

/** Times a partition's drop tries for its lock ({@link PARTITION_LOCK_TIMEOUT_MS} each) before batched deletes take its rows. */
const DROP_TRIES = 20;

/** Runs `work` under the session advisory lock, tried and never waited for; undefined when it is held. */
function exclusively<T>(
  database: Database,
  work: (database: Database) => Promise<T>,
): Promise<T | undefined> {
  return database.connection().execute(async (connection) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${RETENTION_LOCK_KEY}) as locked`.execute(connection);
    if (rows[0]?.locked !== true) return undefined;
    try {
      return await work(connection);
    } finally {
      await sql`select pg_advisory_unlock(${RETENTION_LOCK_KEY})`.execute(connection);
    }
  });
}

/** Makes the partitions ahead (when `usage_records` is partitioned), on a connection that holds the retention lock. */
async function makePartitions(database: Database, now: Date): Promise<string[]> {
  if (!(await usagePartitioned(database))) return [];
  return ensureUsagePartitions(database, monthsAhead(now));
}

/** The monthly partitions whose every possible row is older than the cutoff. */
async function droppablePartitions(database: Database, cutoff: string): Promise<UsagePartition[]> {
  if (!(await usagePartitioned(database))) return [];
  return (await usagePartitions(database)).filter(
    (partition) => partition.to !== null && partition.to <= cutoff,
  );
}

/**
 * Drops each monthly partition wholly older than the cutoff (its rows
 * archived before), folding the charges its rows carry (`charged_micros`,
 * migration 0017) into the month's `carried_forward` entries in the drop's
 * transaction. A partition a ledger entry still refers to is left to the
 * batched deletes, which keep the rows referred to. Only entries that are
 * not charges can: a charge entry (before migration 0017) is dated as its
 * usage row (settlement and late charge wrote both from one input), so it
 * was rolled up with the month; a refund (`adjustment`) is dated when it
 * is made. So the check reads the non-charge entries that refer to usage
 * (partial index `balance_entries_usage_refs`, migration 0013), not the
 * month's rows. The reads use one core at most (no parallel workers),
 * leaving the others to the request path. The request path writes rows
 * dated now, never into such a month, so no row arrives between the
 * archive and the drop; a row a newer entry refers to was not archived,
 * and keeps its month from being dropped. The drop (`drop table`, which
 * locks `usage_records` for a moment) waits at most
 * {@link PARTITION_LOCK_TIMEOUT_MS} for its lock, {@link DROP_TRIES} times.
 */
async function dropPartitions(run: RetentionRun): Promise<void> {
  const { database, report } = run;
  for (const partition of await droppablePartitions(database, run.cutoff)) {
    if (run.stopped()) return;
    const table = sql.table(partition.name);
    const referenced = await sql<{
      found: boolean;
    }>`select exists (select 1 from balance_entries b
        where b.kind <> 'charge' and b.usage_id is not null
          and exists (select 1 from ${table} u where u.id = b.usage_id)) as found`.execute(
      database,
    );
    if (referenced.rows[0]?.found !== false) continue;
    const { counted, charges } = await database.transaction().execute(async (transaction) => {
      await sql`set local max_parallel_workers_per_gather = 0`.execute(transaction);
      const rows = await sql<{ rows: string }>`select count(*) as rows from ${table}`.execute(
        transaction,
      );
      const charged = await sql<{
        account_id: string;
        month: string;
        micros: string;
        charges: string;
      }>`select account_id, substr(created_at, 1, 7) as month, sum(charged_micros) as micros,
          count(*) as charges
        from ${table} where charged_micros > 0 group by 1, 2`.execute(transaction);
      return { counted: rows, charges: charged.rows };
    });
    // The month's charges (migration 0017) go into its carried-forward entries with the drop.
    const sums: CarriedSums = new Map();
    for (const charge of charges) {
      carry(sums, charge.account_id, charge.month, -Number(charge.micros));
    }
    for (let attempt = 1; attempt <= DROP_TRIES && !run.stopped(); attempt += 1) {
      try {
        await database.transaction().execute(async (transaction) => {
          await sql
            .raw(`set local lock_timeout = ${PARTITION_LOCK_TIMEOUT_MS}`)
            .execute(transaction);
          await carryForward(transaction, sums);
          await sql`drop table ${table}`.execute(transaction);
        });
      } catch (error) {
        if ((error as { code?: unknown }).code !== "55P03") throw error;
        await run.pause();
        continue;
      }
      report.usageRowsRemoved += Number(counted.rows[0]?.rows ?? 0);
      report.ledgerEntriesRolledUp += charges.reduce((sum, row) => sum + Number(row.charges), 0);
      for (const id of sums.keys()) run.months.add(id);
      report.partitionsDropped.push(partition.name);
      report.batches += 1;
      break;
    }
  }
}

/** See {@link RetentionDialect.partitionStats}: rows are counted exactly (a scan of each partition). */
async function partitionStats(
  database: Database,
  dropped: ReadonlySet<string>,
): Promise<PartitionStats[] | undefined> {
  if (!(await usagePartitioned(database))) return undefined;
  const partitions: PartitionStats[] = [];
  for (const partition of await usagePartitions(database)) {
    const table = sql.table(partition.name);
    const counted = await sql<{ rows: string; bytes: string }>`select count(*) as rows,
        pg_total_relation_size(${partition.name}::regclass) as bytes from ${table}`.execute(
      database,
    );
    partitions.push({
      partition: partition.name,
      from: partition.from,
      to: partition.to,
      rows: Number(counted.rows[0]?.rows ?? 0),
      bytes: Number(counted.rows[0]?.bytes ?? 0),
      dropsNext: dropped.has(partition.name),
    });
  }
  return partitions;
}

/**
 * Retention on PostgreSQL: one instance at a time does the work (a session
 * advisory lock), `usage_records` is partitioned by month (migration 0013):
 * the months ahead are made, months wholly older than the cutoff dropped
 * whole. Space is reclaimed by autovacuum, not by the run.
 */
export const postgresRetention: RetentionDialect = {
  exclusively,
  makePartitions,
  droppablePartitions,
  dropPartitions,
  reclaim: async () => 0,
  setUpReclaim: async () => ({
    unsupported: "PostgreSQL reclaims space by autovacuum; see docs/OPERATIONS.md",
  }),
  partitionStats,
};
