import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/** A `personas` row as migration 0010 finds it (columns of 0001, 0002 and 0006). */
interface PersonaRowBefore {
  id: string;
  name: string;
  traits: string;
  provider: string;
  model: string;
  route: string | null;
  updated_at: string;
}

/**
 * Migration `0010_persona_versions` ("Persona versions"):
 *
 * - `persona_versions`: every version of a persona's name, traits and
 *   route, immutable once written — `version` counts 1, 2, 3 … per
 *   persona; `note` is the operator's `--note`; `changes` a JSON array of
 *   what differs from the version live when it was made (`["name",
 *   "traits.communicationStyle.verbosity", "route"]`); `promoted_at` when it
 *   first went live (null: a draft that never served).
 * - `personas.live_version`: which version answers requests. The
 *   `personas` row stays the live version's projection (name, traits,
 *   route), so the request path still reads one row.
 * - `usage_records.persona_version`: the version that answered (null on
 *   rows written before, and on requests refused before a persona was read).
 *
 * Every existing persona becomes its version 1, live, with its route as
 * JSON (the single `provider:model` target for rows written before
 * migration 0006) and the time of its last change. Portable types only,
 * so the same statements serve SQLite and PostgreSQL.
 */
export const personaVersionsMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("persona_versions")
      .addColumn("persona_id", "text", (column) =>
        column.notNull().references("personas.id").onDelete("cascade"),
      )
      .addColumn("version", "integer", (column) => column.notNull())
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("traits", "text", (column) => column.notNull())
      .addColumn("route", "text", (column) => column.notNull())
      .addColumn("note", "text")
      .addColumn("changes", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("created_by", "text")
      .addColumn("promoted_at", "text")
      .addPrimaryKeyConstraint("persona_versions_pk", ["persona_id", "version"])
      .execute();
    await database.schema
      .alterTable("personas")
      .addColumn("live_version", "integer", (column) => column.notNull().defaultTo(1))
      .execute();
    await database.schema
      .alterTable("usage_records")
      .addColumn("persona_version", "integer")
      .execute();

    const typed = database as unknown as Kysely<{
      personas: PersonaRowBefore;
      persona_versions: Record<string, string | number | null>;
    }>;
    const personas = await typed
      .selectFrom("personas")
      .select(["id", "name", "traits", "provider", "model", "route", "updated_at"])
      .execute();
    for (const persona of personas) {
      await typed
        .insertInto("persona_versions")
        .values({
          persona_id: persona.id,
          version: 1,
          name: persona.name,
          traits: persona.traits,
          route:
            persona.route ?? JSON.stringify([{ upstream: persona.provider, model: persona.model }]),
          note: null,
          changes: "[]",
          created_at: persona.updated_at,
          created_by: null,
          promoted_at: persona.updated_at,
        })
        .execute();
    }
  },
};

/** Persona versions' migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const PERSONA_VERSIONS_MIGRATIONS: SchemaMigrations = {
  "0010_persona_versions": personaVersionsMigration,
};
