import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import { dropForeignKeys, type SchemaMigrations } from "../storage/migrations.js";

/** What the unpartitioned table is called while its rows are copied. */
const OLD_TABLE = "usage_records_unpartitioned";

/** Months further back than this get no partition of their own (their rows go to the default one). */
const MONTHS_BACK_AT_MOST = 120;

/*
 * How this migration names and bounds partitions, copied from
 * `usage-partitions.ts` as it stood when the migration shipped: a
 * migration is a record, so it keeps its own copy of what it ran, and the
 * live module may change without changing it.
 */

/** The partition that takes a row whose month has no partition. */
const USAGE_DEFAULT_PARTITION = "usage_records_default";

/** Months made ahead of the current one. */
const PARTITION_MONTHS_AHEAD = 2;

/** The month (`YYYY-MM`, UTC) of a date or ISO 8601 UTC timestamp, `offset` months later. */
function monthOf(date: Date | string, offset = 0): string {
  const at = typeof date === "string" ? new Date(date) : date;
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1))
    .toISOString()
    .slice(0, 7);
}

/** The current month of `now` and the {@link PARTITION_MONTHS_AHEAD} after it, in order. */
function monthsAhead(now: Date): string[] {
  const months: string[] = [];
  for (let offset = 0; offset <= PARTITION_MONTHS_AHEAD; offset += 1) {
    months.push(monthOf(now, offset));
  }
  return months;
}

/**
 * `create table if not exists` of a month's partition (`YYYY-MM`):
 * `usage_records_YYYY_MM`, from its first instant (included) to the next
 * month's (excluded), ISO 8601 UTC.
 */
async function createMonthPartition(database: Kysely<unknown>, month: string): Promise<void> {
  const from = `${month}-01T00:00:00.000Z`;
  const to = `${monthOf(from, 1)}-01T00:00:00.000Z`;
  await sql`create table if not exists ${sql.table(`usage_records_${month.replace("-", "_")}`)} partition of usage_records
    for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(database);
}

/**
 * Migration `0013_usage_partitions`: on
 * PostgreSQL, `usage_records` becomes a table partitioned by month
 * (`partition by range (created_at)`), so retention drops a month whose
 * rows are all older than its cutoff instead of deleting them row by row
 * (api/src/usage/usage-partitions.ts). In the migration's transaction:
 *
 * 1. The foreign key `balance_entries.usage_id → usage_records(id)` is
 *    dropped: a partitioned table's unique keys must hold the partition
 *    key, so `id` alone can no longer be referenced. Its index
 *    (`balance_entries_usage_id`) stays. The ledger's link to its usage row
 *    is kept by the statements that write both in one transaction
 *    (settlement, late charge, refund); retention never drops a partition
 *    that a ledger entry still refers to. The partial index
 *    `balance_entries_usage_refs` (entries that are not charges and refer
 *    to usage: refunds) lets it check that without reading the month.
 * 2. The table is renamed, its indexes and constraints dropped, and a
 *    partitioned `usage_records` made like it (same columns, types,
 *    defaults), with primary key `(id, created_at)` (a lookup by `id` alone
 *    still uses it: `id` leads), the foreign key to `accounts` and the same
 *    indexes.
 * 3. A partition per month that holds rows (but those more than 120
 *    months back), the current month and the next two, and the default
 *    partition (`usage_records_default`) for any row whose
 *    month has none, so an insert never fails.
 * 4. The rows are copied over, the old table dropped, and the daily-totals
 *    trigger `usage_records_daily_totals` (function
 *    `persona_usage_daily_totals`, migrations 0008 and 0012) made again on
 *    the partitioned table, after the copy (the copied rows are already in
 *    the totals).
 *
 * SQLite: nothing (retention deletes in batches and gives pages back by
 * `incremental_vacuum`).
 */
export const usagePartitionsMigration: Migration = {
  async up(database: Kysely<unknown>) {
    if (!(database.getExecutor().adapter instanceof PostgresAdapter)) return;

    await dropForeignKeys(database, "balance_entries", "usage_records");

    await sql`alter table usage_records rename to ${sql.table(OLD_TABLE)}`.execute(database);
    // Indexes (but the primary key's) are made again on the new table under the same names.
    const indexes = await sql<{ name: string; definition: string }>`select
        c.relname as name, pg_get_indexdef(i.indexrelid) as definition
      from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = ${OLD_TABLE}::regclass and not i.indisprimary order by c.relname`.execute(
      database,
    );
    for (const { name } of indexes.rows) {
      await sql`drop index ${sql.id(name)}`.execute(database);
    }
    const constraints = await sql<{ name: string }>`select conname as name from pg_constraint
      where conrelid = ${OLD_TABLE}::regclass and contype in ('p', 'f', 'u')`.execute(database);
    for (const { name } of constraints.rows) {
      await sql`alter table ${sql.table(OLD_TABLE)} drop constraint ${sql.id(name)}`.execute(
        database,
      );
    }

    await sql`create table usage_records (like ${sql.table(OLD_TABLE)} including defaults)
      partition by range (created_at)`.execute(database);
    await sql`alter table usage_records add constraint usage_records_pkey primary key (id, created_at)`.execute(
      database,
    );
    await sql`alter table usage_records add constraint usage_records_account_id_fkey
      foreign key (account_id) references accounts (id)`.execute(database);
    for (const { definition } of indexes.rows) {
      const onNewTable = definition.replace(
        new RegExp(` ON (?:ONLY )?(?:[\\w"]+\\.)?${OLD_TABLE} `, "u"),
        " ON usage_records ",
      );
      await sql.raw(onNewTable).execute(database);
    }

    const held = await sql<{ month: string }>`select distinct substr(created_at, 1, 7) as month
      from ${sql.table(OLD_TABLE)} where created_at ~ '^[0-9]{4}-[0-9]{2}-'`.execute(database);
    const now = new Date();
    const earliest = monthOf(now, -MONTHS_BACK_AT_MOST);
    const months = new Set([
      ...held.rows.map((row) => row.month).filter((month) => month >= earliest),
      ...monthsAhead(now),
    ]);
    for (const month of [...months].sort()) await createMonthPartition(database, month);
    await sql`create table ${sql.table(USAGE_DEFAULT_PARTITION)} partition of usage_records default`.execute(
      database,
    );

    await sql`insert into usage_records select * from ${sql.table(OLD_TABLE)}`.execute(database);
    await sql`drop table ${sql.table(OLD_TABLE)}`.execute(database);
    await sql`create index balance_entries_usage_refs on balance_entries (usage_id)
      where kind <> 'charge' and usage_id is not null`.execute(database);
    await sql`create trigger usage_records_daily_totals after insert or update or delete on usage_records
      for each row execute function persona_usage_daily_totals()`.execute(database);
  },
};

/** The partitioning migration by name, gathered in `api/src/schema-migrations.ts`. */
export const PARTITION_MIGRATIONS: SchemaMigrations = {
  "0013_usage_partitions": usagePartitionsMigration,
};
