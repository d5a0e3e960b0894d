import { sql } from "kysely";
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

/** The database as storage sees it: its size and its tables (a part of `persona-admin storage stats`). */
export interface DatabaseStats {
  dialect: Store["dialect"];
  /** The whole database in bytes (SQLite: page_count × page_size; PostgreSQL: pg_database_size). */
  databaseBytes: number;
  tables: TableStats[];
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
 * Rows and bytes per table and the database's size (`persona-admin
 * storage stats`). Rows are counted exactly (a scan of each table: seconds
 * on tables of tens of millions of rows).
 */
export async function databaseStats(
  store: Pick<Store, "database" | "dialect">,
): Promise<DatabaseStats> {
  const names = await tableNames(store);
  const bytes = await tableBytes(store);
  const tables: TableStats[] = [];
  for (const name of names) {
    const { rows } = await sql<{ rows: number }>`select count(*) as rows from ${sql.table(
      name,
    )}`.execute(store.database);
    tables.push({ table: name, rows: Number(rows[0]?.rows ?? 0), bytes: bytes?.get(name) ?? null });
  }
  if (store.dialect === "postgres") {
    const { rows } = await sql<{
      bytes: string;
    }>`select pg_database_size(current_database()) as bytes`.execute(store.database);
    return { dialect: store.dialect, databaseBytes: Number(rows[0]?.bytes ?? 0), tables };
  }
  const pageSize = await pragmaNumber(store, "page_size");
  const databaseBytes = (await pragmaNumber(store, "page_count")) * pageSize;
  const modes = ["none", "full", "incremental"] as const;
  return {
    dialect: store.dialect,
    databaseBytes,
    tables,
    sqlite: {
      autoVacuum: modes[await pragmaNumber(store, "auto_vacuum")] ?? "none",
      freePages: await pragmaNumber(store, "freelist_count"),
      pageSize,
    },
  };
}
