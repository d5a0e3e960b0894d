import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0009_login_consents`: the browser login's consents that were
 * answered, one row per login request, keyed by the SHA-256 of
 * its `state`. The primary key is what makes a consent usable once: the
 * row is inserted in the same transaction as the key it approves, so a
 * second post of the same consent — sequential, concurrent, or on another
 * instance — inserts nothing and creates no key. Portable column types only,
 * for SQLite and PostgreSQL alike.
 */
export const loginConsentMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("login_consents")
      .addColumn("state_hash", "text", (column) => column.primaryKey())
      .addColumn("account_id", "text", (column) =>
        column.notNull().references("accounts.id").onDelete("cascade"),
      )
      .addColumn("decision", "text", (column) => column.notNull())
      .addColumn("key_id", "text")
      .addColumn("used_at", "text", (column) => column.notNull())
      .execute();
  },
};

/** The browser login's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const LOGIN_MIGRATIONS: SchemaMigrations = { "0009_login_consents": loginConsentMigration };
