import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import type { SchemaMigrations } from "./migrations.js";

/**
 * The channel the PostgreSQL triggers notify, as this migration made them
 * (its own copy; the listener reads `CHANGES_CHANNEL` of
 * `storage/postgres/postgres-changes.ts`).
 */
const CHANGES_CHANNEL = "persona_changes";

/**
 * The writes that in-process caches depend on (storage/change-feed.ts):
 * a key's revocation, limits or owner; an account's status or limits; any
 * change of a persona; and deletions. Balances, reservations and
 * `last_used_at` change on every request and are never cached, so they
 * are left out.
 */
const WATCHED = [
  {
    table: "api_keys",
    columns: ["revoked_at", "account_id", "rate_limit_minute", "rate_limit_hour", "rate_limit_day"],
  },
  {
    table: "accounts",
    columns: ["status", "name", "rate_limit_minute", "rate_limit_hour", "rate_limit_day"],
  },
  { table: "personas", columns: [] as string[] },
] as const;

/**
 * Migration `0005_storage_changes`: triggers that make every watched write
 * visible to caches, however it is made — on PostgreSQL a `NOTIFY
 * persona_changes` per statement (delivered at commit to every listening
 * instance), on SQLite a bump of `change_counter`, which the writer worker
 * reads after its own commits and when `PRAGMA data_version` shows another
 * process committed — and the table `/readyz` writes its probe to.
 */
export const storageMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("storage_probes")
      .addColumn("instance_id", "text", (column) => column.primaryKey())
      .addColumn("probed_at", "text", (column) => column.notNull())
      .execute();
    const postgres = database.getExecutor().adapter instanceof PostgresAdapter;
    if (postgres) {
      await sql`create or replace function persona_notify_change() returns trigger language plpgsql as $$
        begin perform pg_notify(${sql.lit(CHANGES_CHANNEL)}, tg_table_name); return null; end $$`.execute(
        database,
      );
      for (const { table, columns } of WATCHED) {
        const update = columns.length === 0 ? "update" : `update of ${columns.join(", ")}`;
        await sql
          .raw(
            `create trigger ${table}_changed after ${update} or delete on ${table} for each statement execute function persona_notify_change()`,
          )
          .execute(database);
      }
      return;
    }
    await database.schema
      .createTable("change_counter")
      .addColumn("id", "integer", (column) => column.primaryKey())
      .addColumn("value", "integer", (column) => column.notNull())
      .execute();
    await sql`insert into change_counter (id, value) values (1, 0)`.execute(database);
    for (const { table, columns } of WATCHED) {
      const update = columns.length === 0 ? "update" : `update of ${columns.join(", ")}`;
      for (const [suffix, event] of [
        ["changed", update],
        ["deleted", "delete"],
      ] as const) {
        await sql
          .raw(
            `create trigger ${table}_${suffix} after ${event} on ${table} begin update change_counter set value = value + 1 where id = 1; end`,
          )
          .execute(database);
      }
    }
  },
};

/** The storage layer (change feed)'s migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const STORAGE_MIGRATIONS: SchemaMigrations = { "0005_storage_changes": storageMigration };
