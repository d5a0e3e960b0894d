import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0018_usage_request_id_index` (WAL per request), on
 * both dialects: drops `usage_records_request_id` (migration 0002), the
 * index on every usage row's `request_id`. No query of the service looks
 * usage rows up by request ID (the console, `/usage`, the CSV export,
 * retention and the admin commands go by account and time, through
 * `usage_records_account_created`, or by time alone), while every request
 * paid an insertion into it: on PostgreSQL about 137 WAL bytes a request
 * (the entry, and page splits in the middle of the index, request IDs
 * being random), about a tenth of a request's WAL on one instance (`npm
 * run bench:db-cost`), and its pages in the database's growth. On a
 * partitioned `usage_records` (0013) dropping the parent's index drops
 * every partition's with it.
 *
 * To find a request's usage row by its ID (support): narrow by time first,
 * from the request's log line (`time`, `req.id`) — `where created_at
 * between … and … and request_id = …` reads `usage_records_created_at`
 * (OPERATIONS.md).
 */
export const usageRequestIdIndexMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema.dropIndex("usage_records_request_id").ifExists().execute();
  },
};

/** The migration by name, gathered in `api/src/schema-migrations.ts`. */
export const REQUEST_INDEX_MIGRATIONS: SchemaMigrations = {
  "0018_usage_request_id_index": usageRequestIdIndexMigration,
};
