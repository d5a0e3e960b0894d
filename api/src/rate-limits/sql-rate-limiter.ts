import { type RawBuilder, sql, type Transaction } from "kysely";
import type { Database } from "../storage/database.js";
import { relaxCommit } from "../storage/relaxed-commit.js";
import type { DatabaseSchema } from "../storage/schema.js";
import {
  describeWindows,
  type RateLimitDecision,
  type RateLimits,
  refusal,
  WINDOWS,
  type WindowCounters,
  type WindowName,
} from "./rate-limit-windows.js";
import type { RateLimiter } from "./rate-limiter.js";

type CounterColumns = {
  minute_start: number;
  minute_count: number;
  hour_start: number;
  hour_count: number;
  day_start: number;
  day_count: number;
};

function toCounters(row: CounterColumns): WindowCounters {
  return {
    minute: { start: Number(row.minute_start), count: Number(row.minute_count) },
    hour: { start: Number(row.hour_start), count: Number(row.hour_count) },
    day: { start: Number(row.day_start), count: Number(row.day_count) },
  };
}

/**
 * Rate limits kept in the database (SQLite or PostgreSQL), one row per key
 * holding all three windows. One conditional UPDATE checks every window and
 * consumes all of them or none:
 *
 * ```sql
 * UPDATE rate_limit_counters SET <each window: restart if over, else count + 1>
 * WHERE api_key_id = ? AND <each window: count in force < limit>
 * RETURNING *
 * ```
 *
 * Every SET expression reads the row's old values, and PostgreSQL re-checks
 * the WHERE clause on the newest row version after waiting for a
 * concurrent writer's lock (SQLite has one writer), so concurrent requests
 * across instances never pass more than the limit. One round trip in the
 * common case; a fresh key's row is inserted on first use.
 */
export class SqlRateLimiter implements RateLimiter {
  /**
   * @param relaxedCommits - PostgreSQL: counters commit without waiting for
   *   the WAL flush (a database crash may forget the last few counts; see
   *   storage/relaxed-commit.ts)
   */
  constructor(
    private readonly database: Database,
    private readonly relaxedCommits = false,
  ) {}

  async consume(
    apiKeyId: string,
    limits: RateLimits,
    now = Date.now(),
  ): Promise<RateLimitDecision> {
    let row = await this.tryConsume(apiKeyId, limits, now);
    if (row === undefined) {
      await this.database
        .insertInto("rate_limit_counters")
        .values({
          api_key_id: apiKeyId,
          minute_start: now,
          minute_count: 0,
          hour_start: now,
          hour_count: 0,
          day_start: now,
          day_count: 0,
        })
        .onConflict((conflict) => conflict.column("api_key_id").doNothing())
        .execute();
      row = await this.tryConsume(apiKeyId, limits, now);
    }
    if (row !== undefined) {
      return { allowed: true, windows: describeWindows(toCounters(row), limits, now) };
    }
    const current = await this.database
      .selectFrom("rate_limit_counters")
      .selectAll()
      .where("api_key_id", "=", apiKeyId)
      .executeTakeFirstOrThrow();
    return refusal(toCounters(current), limits, now);
  }

  private tryConsume(
    apiKeyId: string,
    limits: RateLimits,
    now: number,
  ): Promise<CounterColumns | undefined> {
    if (!this.relaxedCommits) return this.consumeStatement(this.database, apiKeyId, limits, now);
    return this.database.transaction().execute(async (transaction) => {
      await relaxCommit(transaction, true);
      return this.consumeStatement(transaction, apiKeyId, limits, now);
    });
  }

  private consumeStatement(
    database: Database | Transaction<DatabaseSchema>,
    apiKeyId: string,
    limits: RateLimits,
    now: number,
  ): Promise<CounterColumns | undefined> {
    const expired = (name: WindowName, milliseconds: number): RawBuilder<boolean> =>
      sql<boolean>`${now} >= ${sql.ref(`${name}_start`)} + ${sql.lit(milliseconds)}`;
    const set: Record<string, RawBuilder<number>> = {};
    let query = database.updateTable("rate_limit_counters").where("api_key_id", "=", apiKeyId);
    for (const { name, milliseconds } of WINDOWS) {
      const start = sql.ref(`${name}_start`);
      const count = sql.ref(`${name}_count`);
      set[`${name}_start`] =
        sql<number>`case when ${expired(name, milliseconds)} then ${now} else ${start} end`;
      set[`${name}_count`] =
        sql<number>`case when ${expired(name, milliseconds)} then 1 else ${count} + 1 end`;
      query = query.where(
        sql<boolean>`(case when ${expired(name, milliseconds)} then 0 else ${count} end) < ${limits[name]}`,
      );
    }
    return query
      .set(set as unknown as CounterColumns)
      .returning([
        "minute_start",
        "minute_count",
        "hour_start",
        "hour_count",
        "day_start",
        "day_count",
      ])
      .executeTakeFirst();
  }

  async close(): Promise<void> {}
}
