import type { Database } from "../storage/store.js";
import type { RetentionRun } from "./retention-run.js";
import type { PartitionStats, UsagePartition } from "./usage-partitions.js";

/** What `persona-admin storage vacuum` did, or why the store has nothing to do. */
export type ReclaimSetup = { autoVacuum: "incremental" | "unchanged" } | { unsupported: string };

/**
 * What retention does differently on each dialect, behind one interface
 * (as the request path's ledger is): SQLite gives freed pages back to the
 * file; PostgreSQL holds one run at a time across instances and keeps
 * `usage_records` in monthly partitions, dropped whole. Chosen once, by
 * {@link retentionDialectOf}.
 */
export interface RetentionDialect {
  /**
   * Runs `work` alone across instances, on a connection of its own.
   *
   * @returns what `work` returned; undefined when another run holds the work
   */
  exclusively<T>(
    database: Database,
    work: (database: Database) => Promise<T>,
  ): Promise<T | undefined>;
  /**
   * Makes the partitions of `now`'s month and the months ahead that are
   * missing (under the retention lock).
   *
   * @returns the partitions made
   */
  makePartitions(database: Database, now: Date): Promise<string[]>;
  /** The partitions whose every possible row is older than `cutoff` (ISO 8601 UTC). */
  droppablePartitions(database: Database, cutoff: string): Promise<UsagePartition[]>;
  /**
   * Drops whole the partitions wholly older than the run's cutoff (their
   * rows archived before), folding their charges into the months'
   * carried-forward entries; counts what went into the run's report.
   */
  dropPartitions(run: RetentionRun): Promise<void>;
  /** Gives the space the run freed back to the file system; returns the bytes given back. */
  reclaim(run: RetentionRun): Promise<number>;
  /**
   * Sets up the store so runs can give space back (`persona-admin storage
   * vacuum`, once, for stores made before).
   *
   * @param location - the store's location (`Store.location`)
   */
  setUpReclaim(location: string): Promise<ReclaimSetup>;
  /**
   * The partitions of `usage_records`, oldest first, the default one last,
   * each with its rows and bytes (`persona-admin storage stats`); undefined
   * when the table is not partitioned.
   *
   * @param dropped - the partitions the next retention run drops whole
   */
  partitionStats(
    database: Database,
    dropped: ReadonlySet<string>,
  ): Promise<PartitionStats[] | undefined>;
}
