import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0023_persona_release_note`: `persona_versions.release_note`,
 * what the customer is told about a version (`persona-admin persona create
 * | update … --release-note <text>`), shown on the signed-in pages beside
 * the persona's name and version. It is kept apart from `note`, the
 * operator's internal note, which customers never see.
 *
 * One nullable text column: the same statement serves SQLite and
 * PostgreSQL, and versions made before it simply have no release note.
 */
export const personaReleaseNoteMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .alterTable("persona_versions")
      .addColumn("release_note", "text")
      .execute();
  },
};

/** The persona release note's migration by name, gathered in `api/src/schema-migrations.ts`. */
export const PERSONA_RELEASE_NOTE_MIGRATIONS: SchemaMigrations = {
  "0023_persona_release_note": personaReleaseNoteMigration,
};
