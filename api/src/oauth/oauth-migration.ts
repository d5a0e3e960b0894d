import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0028_oauth`: the service as an OAuth 2.1 authorization server
 * for its remote MCP endpoint (`/mcp`).
 *
 * - `oauth_clients`: clients registered by RFC 7591 dynamic registration,
 *   their metadata as JSON text (`metadata`). Every client is public
 *   (`token_endpoint_auth_method: none`, PKCE proves the caller), so no
 *   client secret exists to store.
 * - `oauth_grants`: one approval of a client by an account for one
 *   persona (a "connected app" on /keys); every token descends from one
 *   grant (its family). `revoked_at` set ends every token of the family.
 * - `oauth_codes`: authorization codes by their SHA-256 hash, with the
 *   PKCE S256 challenge, redirect URI and resource of the request; used once.
 * - `oauth_tokens`: access and refresh tokens by their SHA-256 hash, each
 *   of a grant, with its expiry; a refresh token is `spent_at` once rotated.
 *
 * A revocation must reach every instance's cache within a second: on
 * `oauth_grants` the same change-feed triggers as migration 0005 makes on
 * `api_keys` (PostgreSQL `NOTIFY persona_changes` per statement, SQLite a
 * bump of `change_counter`), on updates of `revoked_at` and deletes.
 * Portable column types only, for SQLite and PostgreSQL alike.
 */
export const oauthMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("oauth_clients")
      .addColumn("client_id", "text", (column) => column.primaryKey())
      .addColumn("client_name", "text")
      .addColumn("metadata", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createTable("oauth_grants")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("client_id", "text", (column) =>
        column.notNull().references("oauth_clients.client_id").onDelete("cascade"),
      )
      .addColumn("account_id", "text", (column) =>
        column.notNull().references("accounts.id").onDelete("cascade"),
      )
      .addColumn("persona_id", "text", (column) =>
        column.notNull().references("personas.id").onDelete("cascade"),
      )
      .addColumn("resource", "text", (column) => column.notNull())
      .addColumn("redirect_uri", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("last_used_at", "text")
      .addColumn("revoked_at", "text")
      .execute();
    await database.schema
      .createIndex("oauth_grants_account")
      .on("oauth_grants")
      .columns(["account_id", "created_at"])
      .execute();
    await database.schema
      .createTable("oauth_codes")
      .addColumn("code_hash", "text", (column) => column.primaryKey())
      .addColumn("grant_id", "text", (column) =>
        column.notNull().references("oauth_grants.id").onDelete("cascade"),
      )
      .addColumn("code_challenge", "text", (column) => column.notNull())
      .addColumn("expires_at", "text", (column) => column.notNull())
      .addColumn("used_at", "text")
      .execute();
    await database.schema
      .createTable("oauth_tokens")
      .addColumn("token_hash", "text", (column) => column.primaryKey())
      .addColumn("grant_id", "text", (column) =>
        column.notNull().references("oauth_grants.id").onDelete("cascade"),
      )
      .addColumn("kind", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("expires_at", "text", (column) => column.notNull())
      .addColumn("spent_at", "text")
      .execute();
    await database.schema
      .createIndex("oauth_tokens_grant")
      .on("oauth_tokens")
      .column("grant_id")
      .execute();
    if (database.getExecutor().adapter instanceof PostgresAdapter) {
      // persona_notify_change() is migration 0005's function.
      await sql
        .raw(
          "create trigger oauth_grants_changed after update of revoked_at or delete on oauth_grants for each statement execute function persona_notify_change()",
        )
        .execute(database);
      return;
    }
    for (const [suffix, event] of [
      ["changed", "update of revoked_at"],
      ["deleted", "delete"],
    ] as const) {
      await sql
        .raw(
          `create trigger oauth_grants_${suffix} after ${event} on oauth_grants begin update change_counter set value = value + 1 where id = 1; end`,
        )
        .execute(database);
    }
  },
};

/** The OAuth authorization server's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const OAUTH_MIGRATIONS: SchemaMigrations = { "0028_oauth": oauthMigration };
