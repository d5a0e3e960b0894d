import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0030_oauth_upkeep`: which connected app made a usage row, and
 * the index the sweep of expired OAuth tokens reads.
 *
 * - `usage_records.oauth_grant_id`: the grant (`oauth_grants.id`) whose
 *   access token made the request (a tool call of `/mcp`); null for every
 *   other caller and on older rows. No foreign key, as `api_key_id` and
 *   `persona_id` have none: a usage row outlives what it names. A
 *   nullable column without a default: no table rewrite
 *   on either dialect; on PostgreSQL the partitioned table's partitions
 *   take it with it.
 * - `oauth_tokens_expires_at` on `oauth_tokens(expires_at)`: the sweep of
 *   tokens expired more than a day ago reads it, not the whole table.
 *
 * Portable types only, so the same statements serve SQLite and PostgreSQL.
 */
export const oauthUpkeepMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema.alterTable("usage_records").addColumn("oauth_grant_id", "text").execute();
    await database.schema
      .createIndex("oauth_tokens_expires_at")
      .on("oauth_tokens")
      .column("expires_at")
      .execute();
  },
};

/** The OAuth upkeep migration by name, gathered in `api/src/schema-migrations.ts`. */
export const OAUTH_UPKEEP_MIGRATIONS: SchemaMigrations = {
  "0030_oauth_upkeep": oauthUpkeepMigration,
};
