import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0026_persona_canary`: a canary serves a version of a persona
 * other than the live one to a share of its traffic.
 *
 * - `personas.canary_version`, `canary_percent` (1–50),
 *   `canary_started_at` (ISO 8601 UTC, also the canary's identity in the
 *   sticky assignment), `canary_max_error_increase` (percentage points)
 *   and `canary_min_requests`: the running canary, all null when none runs.
 *   On the `personas` row so the request path still reads one row and the
 *   change feed's trigger on `personas` (migration 0005) tells every
 *   instance of a start or stop.
 * - `persona_canary_events`: each start, stop, automatic stop and finish
 *   (by promotion), with its time, operator and, for an automatic stop, the
 *   figures that caused it (JSON in `details`).
 *
 * Portable types only, so the same statements serve SQLite and PostgreSQL.
 */
export const personaCanaryMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema.alterTable("personas").addColumn("canary_version", "integer").execute();
    await database.schema.alterTable("personas").addColumn("canary_percent", "integer").execute();
    await database.schema.alterTable("personas").addColumn("canary_started_at", "text").execute();
    await database.schema
      .alterTable("personas")
      .addColumn("canary_max_error_increase", "double precision")
      .execute();
    await database.schema
      .alterTable("personas")
      .addColumn("canary_min_requests", "integer")
      .execute();
    await database.schema
      .createTable("persona_canary_events")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("persona_id", "text", (column) =>
        column.notNull().references("personas.id").onDelete("cascade"),
      )
      .addColumn("at", "text", (column) => column.notNull())
      .addColumn("action", "text", (column) => column.notNull())
      .addColumn("version", "integer", (column) => column.notNull())
      .addColumn("percent", "integer")
      .addColumn("started_at", "text", (column) => column.notNull())
      .addColumn("operator", "text")
      .addColumn("details", "text")
      .execute();
    await database.schema
      .createIndex("persona_canary_events_persona")
      .on("persona_canary_events")
      .columns(["persona_id", "at"])
      .execute();
  },
};

/** The persona canary's migration by name, gathered in `api/src/schema-migrations.ts`. */
export const PERSONA_CANARY_MIGRATIONS: SchemaMigrations = {
  "0026_persona_canary": personaCanaryMigration,
};
