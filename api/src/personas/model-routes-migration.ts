import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0006_model_routes` (issue "Model routes like a gateway"):
 *
 * - `personas.route`: the persona's ordered targets as JSON
 *   (`[{ "upstream": …, "model": … }, …]`). Null on the rows written before
 *   it: those personas keep their single target `provider:model`, read from
 *   the `provider` and `model` columns, which every write still fills with
 *   the first target.
 * - `usage_records.upstream`, `usage_records.model`: which target answered a
 *   served request (null on refusals, failures and older rows).
 *
 * Nullable text columns only, so the same statements serve SQLite and
 * PostgreSQL and no existing row needs rewriting.
 */
export const modelRoutesMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema.alterTable("personas").addColumn("route", "text").execute();
    // One column per statement: SQLite adds a single column per ALTER TABLE.
    await database.schema.alterTable("usage_records").addColumn("upstream", "text").execute();
    await database.schema.alterTable("usage_records").addColumn("model", "text").execute();
  },
};

/** Personas (model routes)'s migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const MODEL_ROUTES_MIGRATIONS: SchemaMigrations = {
  "0006_model_routes": modelRoutesMigration,
};
