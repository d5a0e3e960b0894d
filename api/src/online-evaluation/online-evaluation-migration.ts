import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0027_online_evaluation`: scoring a share of live answers, and
 * the figures a canary is judged by.
 *
 * - `usage_records.duration_ms`: milliseconds from the request's arrival to
 *   its settlement (or its failure's record); null on older rows. The
 *   latency percentiles of `persona-admin persona status` read it.
 * - `personas.sample_percent` (whole percent 1–100; null: no sampling) and
 *   `sample_settings` (JSON: the reference-free checks, the judge, whether
 *   content is kept and for how many days): on the `personas` row so the
 *   change feed's trigger (migration 0005) tells every instance.
 * - `personas.canary_min_score` (percent of checks passed),
 *   `canary_min_judge_score` (1–5) and `canary_min_samples`: the running
 *   canary's floor on its online score; null when it has none.
 * - `persona_online_scores`: per persona, version, UTC day and canary (its
 *   start, `''` outside a canary) the sums of what sampling scored.
 * - `persona_online_samples`: a sampled message and answer, only when the
 *   operator asked to keep content; removed after `delete_after` by the
 *   retention run.
 *
 * Portable types only, so the same statements serve SQLite and PostgreSQL.
 */
export const onlineEvaluationMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema.alterTable("usage_records").addColumn("duration_ms", "integer").execute();
    await database.schema.alterTable("personas").addColumn("sample_percent", "integer").execute();
    await database.schema.alterTable("personas").addColumn("sample_settings", "text").execute();
    await database.schema
      .alterTable("personas")
      .addColumn("canary_min_score", "double precision")
      .execute();
    await database.schema
      .alterTable("personas")
      .addColumn("canary_min_judge_score", "double precision")
      .execute();
    await database.schema
      .alterTable("personas")
      .addColumn("canary_min_samples", "integer")
      .execute();
    await database.schema
      .createTable("persona_online_scores")
      .addColumn("persona_id", "text", (column) => column.notNull())
      .addColumn("version", "integer", (column) => column.notNull())
      .addColumn("day", "text", (column) => column.notNull())
      .addColumn("canary_started_at", "text", (column) => column.notNull())
      .addColumn("samples", "integer", (column) => column.notNull())
      .addColumn("checks", "integer", (column) => column.notNull())
      .addColumn("checks_passed", "integer", (column) => column.notNull())
      .addColumn("judged", "integer", (column) => column.notNull())
      .addColumn("judge_score_sum", "double precision", (column) => column.notNull())
      .addColumn("judge_errors", "integer", (column) => column.notNull())
      .addColumn("judge_cost_micros", "bigint", (column) => column.notNull())
      .addPrimaryKeyConstraint("persona_online_scores_pk", [
        "persona_id",
        "version",
        "day",
        "canary_started_at",
      ])
      .execute();
    await database.schema
      .createTable("persona_online_samples")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("persona_id", "text", (column) => column.notNull())
      .addColumn("version", "integer", (column) => column.notNull())
      .addColumn("at", "text", (column) => column.notNull())
      .addColumn("endpoint", "text", (column) => column.notNull())
      .addColumn("message", "text", (column) => column.notNull())
      .addColumn("reply", "text", (column) => column.notNull())
      .addColumn("checks", "text", (column) => column.notNull())
      .addColumn("judge_scores", "text")
      .addColumn("delete_after", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createIndex("persona_online_samples_delete_after")
      .on("persona_online_samples")
      .column("delete_after")
      .execute();
  },
};

/** Online evaluation's migration by name, gathered in `api/src/schema-migrations.ts`. */
export const ONLINE_EVALUATION_MIGRATIONS: SchemaMigrations = {
  "0027_online_evaluation": onlineEvaluationMigration,
};
