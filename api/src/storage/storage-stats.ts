import { sql } from "kysely";
import type { RetentionPreview } from "../usage/retention-report.js";
import { usagePartitioned, usagePartitions } from "../usage/usage-partitions.js";
import type { UsageRetention } from "../usage/usage-retention.js";
import type { Store } from "./store.js";

/** One table of the store. */
export interface TableStats {
  table: string;
  rows: number;
  /**
   * Bytes of the table with its indexes (PostgreSQL: `pg_total_relation_size`,
   * TOAST included, summed over its partitions for `usage_records`; SQLite: the pages `dbstat` counts), or null when SQLite
   * was built without `dbstat`.
   */
  bytes: number | null;
}

/** PostgreSQL: one monthly partition of `usage_records` (migration 0013), or its default partition. */
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

/** What `persona-admin storage stats` shows. */
export interface StorageStats {
  dialect: Store["dialect"];
  /** The whole database in bytes (SQLite: page_count × page_size; PostgreSQL: pg_database_size). */
  databaseBytes: number;
  tables: TableStats[];
  /** Oldest `created_at` of the raw history tables (null when empty). */
  oldest: { usageRecords: string | null; ledgerEntries: string | null };
  /** What the next retention run would remove. */
  retention: RetentionPreview;
  /** PostgreSQL only: the partitions of `usage_records`, oldest first, the default one last. */
  partitions?: PartitionStats[];
  /** SQLite only: the file's auto_vacuum mode and free pages waiting to be given back. */
  sqlite?: { autoVacuum: "none" | "full" | "incremental"; freePages: number; pageSize: number };
}

async function tableNames(store: Pick<Store, "database" | "dialect">): Promise<string[]> {
  const { rows } =
    store.dialect === "postgres"
      ? // Partitions are shown apart (`partitions`), their rows counted in their table's.
        await sql<{
          name: string;
        }>`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
           order by c.relname`.execute(store.database)
      : await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(
          store.database,
        );
  return rows.map((row) => row.name);
}

async function tableBytes(
  store: Pick<Store, "database" | "dialect">,
): Promise<Map<string, number> | null> {
  if (store.dialect === "postgres") {
    const { rows } = await sql<{
      name: string;
      bytes: string;
    }>`select c.relname as name, case when c.relkind = 'p'
         then (select coalesce(sum(pg_total_relation_size(t.relid)), 0) from pg_partition_tree(c.oid) t)
         else pg_total_relation_size(c.oid) end as bytes from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = current_schema() and c.relkind in ('r', 'p')`.execute(store.database);
    return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
  }
  try {
    const { rows } = await sql<{
      name: string;
      bytes: number;
    }>`select m.tbl_name as name, sum(s.pgsize) as bytes from dbstat s
       join sqlite_master m on m.name = s.name group by m.tbl_name`.execute(store.database);
    return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
  } catch {
    return null; // SQLite built without SQLITE_ENABLE_DBSTAT_VTAB
  }
}

async function pragmaNumber(store: Pick<Store, "database">, name: string): Promise<number> {
  const { rows } = await sql<Record<string, number>>`select * from ${sql.raw(
    `pragma_${name}()`,
  )}`.execute(store.database);
  return Number(Object.values(rows[0] ?? {})[0] ?? 0);
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
  const names = await tableNames(store);
  const bytes = await tableBytes(store);
  const tables: TableStats[] = [];
  for (const name of names) {
    const { rows } = await sql<{ rows: number }>`select count(*) as rows from ${sql.table(
      name,
    )}`.execute(store.database);
    tables.push({ table: name, rows: Number(rows[0]?.rows ?? 0), bytes: bytes?.get(name) ?? null });
  }
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
    dialect: store.dialect,
    databaseBytes: 0,
    tables,
    oldest: { usageRecords: usage?.oldest ?? null, ledgerEntries: ledger?.oldest ?? null },
    retention: await retention.preview(),
  };
  if (store.dialect === "postgres") {
    const { rows } = await sql<{
      bytes: string;
    }>`select pg_database_size(current_database()) as bytes`.execute(store.database);
    stats.databaseBytes = Number(rows[0]?.bytes ?? 0);
    if (await usagePartitioned(store.database)) {
      const dropped = new Set(stats.retention.partitions);
      stats.partitions = [];
      for (const partition of await usagePartitions(store.database)) {
        const table = sql.table(partition.name);
        const counted = await sql<{ rows: string; bytes: string }>`select count(*) as rows,
            pg_total_relation_size(${partition.name}::regclass) as bytes from ${table}`.execute(
          store.database,
        );
        stats.partitions.push({
          partition: partition.name,
          from: partition.from,
          to: partition.to,
          rows: Number(counted.rows[0]?.rows ?? 0),
          bytes: Number(counted.rows[0]?.bytes ?? 0),
          dropsNext: dropped.has(partition.name),
        });
      }
    }
    return stats;
  }
  const pageSize = await pragmaNumber(store, "page_size");
  stats.databaseBytes = (await pragmaNumber(store, "page_count")) * pageSize;
  const modes = ["none", "full", "incremental"] as const;
  stats.sqlite = {
    autoVacuum: modes[await pragmaNumber(store, "auto_vacuum")] ?? "none",
    freePages: await pragmaNumber(store, "freelist_count"),
    pageSize,
  };
  return stats;
}
