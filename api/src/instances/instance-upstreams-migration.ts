import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0025_instance_upstreams`, on both dialects: one row per
 * running service instance, saying which upstreams it can serve (each
 * configured, its key present), written at start-up, refreshed by the
 * instance's heartbeat every few seconds and deleted when it stops
 * gracefully; a row whose heartbeat is a few intervals old is a dead
 * instance's and is ignored. `persona-admin` reads it before a persona's
 * route changes. Columns: `id` (random per start), `instance` (its name:
 * `PERSONA_INSTANCE_ID` or `hostname:pid`), `started_at`, `heartbeat_at`
 * (ISO 8601 UTC), `upstreams` (JSON array of upstream names).
 *
 * The rows are ephemeral — a running instance writes its own again within
 * seconds — so on PostgreSQL the table is unlogged: its heartbeats write
 * nothing to the WAL, and a crash or a restored backup leaves it empty.
 */
export const instanceUpstreamsMigration: Migration = {
  async up(database: Kysely<unknown>) {
    const postgres = database.getExecutor().adapter instanceof PostgresAdapter;
    let table = database.schema.createTable("instance_upstreams");
    if (postgres) table = table.modifyFront(sql`unlogged`);
    await table
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("instance", "text", (column) => column.notNull())
      .addColumn("started_at", "text", (column) => column.notNull())
      .addColumn("heartbeat_at", "text", (column) => column.notNull())
      .addColumn("upstreams", "text", (column) => column.notNull())
      .execute();
  },
};

/** The migration by name, gathered in `api/src/schema-migrations.ts`. */
export const INSTANCE_UPSTREAMS_MIGRATIONS: SchemaMigrations = {
  "0025_instance_upstreams": instanceUpstreamsMigration,
};
