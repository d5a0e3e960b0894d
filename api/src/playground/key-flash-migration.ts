import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0007_playground_key_flashes`: new keys waiting to be shown once
 * on `/keys` after the redirect that follows their creation (post, redirect,
 * get). Portable column types only, for SQLite and PostgreSQL alike.
 */
export const keyFlashMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("playground_key_flashes")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) =>
        column.notNull().references("playground_sessions.id").onDelete("cascade"),
      )
      .addColumn("sealed", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("expires_at", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createIndex("playground_key_flashes_session_id")
      .on("playground_key_flashes")
      .column("session_id")
      .execute();
  },
};

/** The playground (key flashes)'s migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const KEY_FLASH_MIGRATIONS: SchemaMigrations = {
  "0007_playground_key_flashes": keyFlashMigration,
};
