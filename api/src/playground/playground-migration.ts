import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0003_playground`: allowed e-mail addresses, sign-in link tokens,
 * browser sessions and rate-limit events. Only portable column types (text,
 * integer) so it runs on SQLite and PostgreSQL alike.
 */
export const playgroundMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("playground_emails")
      .addColumn("email", "text", (column) => column.primaryKey())
      .addColumn("account_id", "text", (column) =>
        column.notNull().references("accounts.id").onDelete("cascade"),
      )
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createTable("sign_in_tokens")
      .addColumn("token_hash", "text", (column) => column.primaryKey())
      .addColumn("email", "text", (column) => column.notNull())
      .addColumn("account_id", "text", (column) =>
        column.notNull().references("accounts.id").onDelete("cascade"),
      )
      .addColumn("return_to", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("expires_at", "text", (column) => column.notNull())
      .addColumn("used_at", "text")
      .execute();
    await database.schema
      .createIndex("sign_in_tokens_expires_at")
      .on("sign_in_tokens")
      .column("expires_at")
      .execute();
    await database.schema
      .createTable("playground_sessions")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("token_hash", "text", (column) => column.notNull().unique())
      .addColumn("account_id", "text", (column) =>
        column.notNull().references("accounts.id").onDelete("cascade"),
      )
      .addColumn("email", "text", (column) => column.notNull())
      .addColumn("user_agent", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("expires_at", "text", (column) => column.notNull())
      .addColumn("last_seen_at", "text", (column) => column.notNull())
      .addColumn("revoked_at", "text")
      .execute();
    await database.schema
      .createIndex("playground_sessions_email")
      .on("playground_sessions")
      .column("email")
      .execute();
    await database.schema
      .createTable("playground_rate_events")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("bucket", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createIndex("playground_rate_events_bucket_created_at")
      .on("playground_rate_events")
      .columns(["bucket", "created_at"])
      .execute();
  },
};

/** The playground's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const PLAYGROUND_MIGRATIONS: SchemaMigrations = { "0003_playground": playgroundMigration };
