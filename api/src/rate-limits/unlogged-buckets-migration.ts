import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0020_postgres_unlogged_rate_limits` (WAL per
 * request), PostgreSQL only: `rate_limit_buckets` becomes an unlogged
 * table, so counting a request in its key's windows (the bucket row's
 * lock record and its update, about 160 WAL bytes a request when every
 * request of a batch has a key of its own: `npm run bench:db-cost`, 100
 * accounts) is no longer written to the WAL.
 *
 * The windows are counters, not records: nothing is charged or billed by
 * them, and the limits stay exact across instances (a batch still locks
 * its buckets in key order and counts under the lock). What changes is
 * what a server crash, a promoted replica or a restored physical backup
 * leaves: the table comes back empty, so every window (API keys,
 * playground accounts, sign-in attempts) starts again at zero from the
 * next request, as it does for the Redis limiter, which keeps its
 * counters in memory. Admissions' commits already did not wait for the
 * flush (0014: a crash could forget the last moment's counts); now it
 * forgets the windows. The rows are kept by the change (`set unlogged`
 * rewrites the table under a short exclusive lock; it holds one row per
 * key that was used). SQLite: nothing.
 */
export const unloggedRateLimitsMigration: Migration = {
  async up(database: Kysely<unknown>) {
    if (!(database.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`alter table rate_limit_buckets set unlogged`.execute(database);
  },
};

/** The migration by name, gathered in `api/src/schema-migrations.ts`. */
export const UNLOGGED_RATE_LIMITS_MIGRATIONS: SchemaMigrations = {
  "0020_postgres_unlogged_rate_limits": unloggedRateLimitsMigration,
};
