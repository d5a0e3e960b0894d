import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "./migrations.js";

/**
 * Migration `0001_accounts_personas_keys`: the service core's tables —
 * accounts, their personas, and API keys (only hashes of them). Portable
 * column types (text, integer) so it runs on SQLite and PostgreSQL alike.
 */
export const coreMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("accounts")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull().defaultTo("active"))
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createTable("personas")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("account_id", "text", (column) =>
        column.notNull().references("accounts.id").onDelete("cascade"),
      )
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("traits", "text", (column) => column.notNull())
      .addColumn("personify_access", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("provider", "text", (column) => column.notNull())
      .addColumn("model", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("updated_at", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createIndex("personas_account_id")
      .on("personas")
      .column("account_id")
      .execute();
    await database.schema
      .createTable("api_keys")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("account_id", "text", (column) =>
        column.notNull().references("accounts.id").onDelete("cascade"),
      )
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("key_hash", "text", (column) => column.notNull().unique())
      .addColumn("masked", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("last_used_at", "text")
      .addColumn("revoked_at", "text")
      .execute();
    await database.schema
      .createIndex("api_keys_account_id")
      .on("api_keys")
      .column("account_id")
      .execute();
  },
};

/** The service core's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const CORE_MIGRATIONS: SchemaMigrations = { "0001_accounts_personas_keys": coreMigration };
