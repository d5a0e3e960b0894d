import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0029_applications`: the access applications of the early-access
 * beta (docs/API.md §1.6) and the record of each one's transitions. Portable
 * column types only (text, integer), for SQLite and PostgreSQL alike.
 */
export const applicationsMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("applications")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("email", "text", (column) => column.notNull().unique())
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("company", "text", (column) => column.notNull())
      .addColumn("purpose", "text", (column) => column.notNull())
      .addColumn("expected_volume", "text", (column) => column.notNull())
      .addColumn("contact_consent", "integer", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("confirm_token_hash", "text", (column) => column.unique())
      .addColumn("confirm_expires_at", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("confirmed_at", "text")
      .addColumn("decided_at", "text")
      .addColumn("decided_by", "text")
      .addColumn("decision_note", "text")
      .addColumn("account_id", "text", (column) =>
        column.references("accounts.id").onDelete("set null"),
      )
      .execute();
    await database.schema
      .createIndex("applications_status_created_at")
      .on("applications")
      .columns(["status", "created_at"])
      .execute();
    await database.schema
      .createIndex("applications_account_id")
      .on("applications")
      .column("account_id")
      .execute();
    await database.schema
      .createTable("application_events")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("application_id", "text", (column) =>
        column.notNull().references("applications.id").onDelete("cascade"),
      )
      .addColumn("from_status", "text")
      .addColumn("to_status", "text", (column) => column.notNull())
      .addColumn("at", "text", (column) => column.notNull())
      .addColumn("actor", "text", (column) => column.notNull())
      .addColumn("note", "text")
      .execute();
    await database.schema
      .createIndex("application_events_application_id_at")
      .on("application_events")
      .columns(["application_id", "at"])
      .execute();
  },
};

/** The access applications' migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const APPLICATION_MIGRATIONS: SchemaMigrations = {
  "0029_applications": applicationsMigration,
};
