import { type Kysely, type Migration, sql } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0004_rate_limit_buckets`: the rate-limit counters keyed by a
 * bucket name instead of an API key, so one limiter counts API keys (the
 * key's ID), playground accounts and sign-in attempts alike. A bucket
 * keeps its three windows in one row, so one statement checks and counts
 * them all. Windows in force move over. The playground's sliding-window
 * events (`playground_rate_events`, migration 0003) are dropped: sign-in
 * and playground limits are buckets here now.
 */
export const rateLimitMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("rate_limit_buckets")
      .addColumn("bucket", "text", (column) => column.primaryKey())
      .addColumn("minute_start", "bigint", (column) => column.notNull())
      .addColumn("minute_count", "integer", (column) => column.notNull())
      .addColumn("hour_start", "bigint", (column) => column.notNull())
      .addColumn("hour_count", "integer", (column) => column.notNull())
      .addColumn("day_start", "bigint", (column) => column.notNull())
      .addColumn("day_count", "integer", (column) => column.notNull())
      .execute();
    await sql`insert into rate_limit_buckets (bucket, minute_start, minute_count, hour_start, hour_count, day_start, day_count)
      select api_key_id, minute_start, minute_count, hour_start, hour_count, day_start, day_count
      from rate_limit_counters`.execute(database);
    await database.schema.dropTable("rate_limit_counters").execute();
    await database.schema.dropTable("playground_rate_events").execute();
    await database.schema
      .createIndex("rate_limit_buckets_day_start")
      .on("rate_limit_buckets")
      .column("day_start")
      .execute();
  },
};

/** Rate limits's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const RATE_LIMIT_MIGRATIONS: SchemaMigrations = {
  "0004_rate_limit_buckets": rateLimitMigration,
};
