import { sql } from "kysely";
import { type DatabaseStats, databaseStats } from "../storage/storage-stats.js";
import type { Store } from "../storage/store.js";
import { retentionDialectOf } from "./retention-dialects.js";
import type { RetentionPreview } from "./retention-report.js";
import type { PartitionStats } from "./usage-partitions.js";
import type { UsageRetention } from "./usage-retention.js";

/** What `persona-admin storage stats` shows. */
export interface StorageStats {
  dialect: DatabaseStats["dialect"];
  /** The whole database in bytes (SQLite: page_count × page_size; PostgreSQL: pg_database_size). */
  databaseBytes: number;
  tables: DatabaseStats["tables"];
  /** Oldest `created_at` of the raw history tables (null when empty). */
  oldest: { usageRecords: string | null; ledgerEntries: string | null };
  /** What the next retention run would remove. */
  retention: RetentionPreview;
  /** PostgreSQL only: the partitions of `usage_records`, oldest first, the default one last. */
  partitions?: PartitionStats[];
  /** SQLite only: the file's auto_vacuum mode and free pages waiting to be given back. */
  sqlite?: DatabaseStats["sqlite"];
}

/**
 * Rows and bytes per table, the oldest raw history row and what the next
 * retention run would remove (`persona-admin storage stats`).
 * Rows are counted exactly (a scan of each table: seconds on tables of
 * tens of millions of rows).
 */
export async function storageStats(
  store: Pick<Store, "database" | "dialect">,
  retention: Pick<UsageRetention, "preview">,
): Promise<StorageStats> {
  const { sqlite: file, ...database } = await databaseStats(store);
  const usage = await store.database
    .selectFrom("usage_records")
    .select(sql<string | null>`min(created_at)`.as("oldest"))
    .executeTakeFirst();
  const entry = await store.database
    .selectFrom("balance_entries")
    .select(sql<string | null>`min(created_at)`.as("oldest"))
    .where("kind", "<>", "carried_forward")
    .executeTakeFirst();
  // A usage row's charge (migration 0017) is an entry of the ledger too.
  const charge = await store.database
    .selectFrom("usage_records")
    .select(sql<string | null>`min(created_at)`.as("oldest"))
    .where("charged_micros", ">", 0)
    .executeTakeFirst();
  const oldestEntries = [entry?.oldest, charge?.oldest].filter(
    (oldest): oldest is string => typeof oldest === "string",
  );
  const ledger = { oldest: oldestEntries.length === 0 ? null : oldestEntries.sort()[0] };
  const stats: StorageStats = {
    ...database,
    oldest: { usageRecords: usage?.oldest ?? null, ledgerEntries: ledger?.oldest ?? null },
    retention: await retention.preview(),
  };
  const partitions = await retentionDialectOf(store.dialect).partitionStats(
    store.database,
    new Set(stats.retention.partitions),
  );
  if (partitions !== undefined) stats.partitions = partitions;
  if (file !== undefined) stats.sqlite = file;
  return stats;
}
