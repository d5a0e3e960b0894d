import type { Kysely, Migration, MigrationProvider } from "kysely";
import { billingMigration } from "../billing/billing-migration.js";
import { playgroundMigration } from "../playground/playground-migration.js";

/**
 * The migrations, in order. One set serves every dialect: only portable
 * column types (text, integer) are used.
 */
const migrations: Record<string, Migration> = {
  "0001_accounts_personas_keys": {
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
  },
  "0002_billing_limits_payments": billingMigration,
  "0003_playground": playgroundMigration,
};

/** Supplies the in-code migrations to kysely's Migrator. */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
