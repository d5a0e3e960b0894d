import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0011_evaluation_runs`: the runs of
 * `persona-admin persona eval`, listed by `persona eval-runs` (see
 * evaluation-tables.ts). Portable column types, so the same statements
 * serve SQLite and PostgreSQL; no foreign key, so a run outlives what it
 * evaluated.
 */
export const evaluationRunsMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("evaluation_runs")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("persona_id", "text", (column) => column.notNull())
      .addColumn("version", "integer")
      .addColumn("route", "text", (column) => column.notNull())
      .addColumn("suite_name", "text", (column) => column.notNull())
      .addColumn("suite_hash", "text", (column) => column.notNull())
      .addColumn("judge", "text")
      .addColumn("started_at", "text", (column) => column.notNull())
      .addColumn("finished_at", "text", (column) => column.notNull())
      .addColumn("pass_rate", "double precision")
      .addColumn("threshold", "double precision", (column) => column.notNull())
      .addColumn("passed", "integer", (column) => column.notNull())
      .addColumn("cost_micros", "bigint", (column) => column.notNull())
      .addColumn("summary", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createIndex("evaluation_runs_persona_started")
      .on("evaluation_runs")
      .columns(["persona_id", "started_at"])
      .execute();
  },
};

/** The evaluation's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const EVALUATION_MIGRATIONS: SchemaMigrations = {
  "0011_evaluation_runs": evaluationRunsMigration,
};
