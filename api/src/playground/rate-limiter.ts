import { randomUUID } from "node:crypto";
import type { Database } from "../storage/database.js";

/** At most `limit` events per `windowMs` milliseconds (a sliding window). */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

/** The outcome of {@link RateLimiter.hit}. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the bucket has room again; 0 when allowed. */
  retryAfterSeconds: number;
}

/**
 * A sliding-window rate limiter whose counters live in the database, so the
 * limits hold across instances (DESIGN.md "Rate limits"). Each hit is written
 * first and counted after, so concurrent requests cannot slip past the limit
 * together; refused hits count too, which keeps a hammering client out.
 */
export class RateLimiter {
  constructor(private readonly database: Database) {}

  /**
   * Counts one event in a bucket and checks it against every rule.
   *
   * @param bucket - what is limited, e.g. `sign-in:address:<hash>`
   */
  async hit(bucket: string, rules: RateLimitRule[], now = new Date()): Promise<RateLimitDecision> {
    const longest = Math.max(...rules.map((rule) => rule.windowMs));
    await this.database
      .deleteFrom("playground_rate_events")
      .where("bucket", "=", bucket)
      .where("created_at", "<=", new Date(now.getTime() - longest).toISOString())
      .execute();
    await this.database
      .insertInto("playground_rate_events")
      .values({ id: randomUUID(), bucket, created_at: now.toISOString() })
      .execute();
    let retryAfterMs = 0;
    for (const rule of rules) {
      const since = new Date(now.getTime() - rule.windowMs).toISOString();
      const events = await this.database
        .selectFrom("playground_rate_events")
        .select("created_at")
        .where("bucket", "=", bucket)
        .where("created_at", ">", since)
        .orderBy("created_at")
        .execute();
      if (events.length <= rule.limit) continue;
      // Refused hits count too, so there is room for one more once all but
      // limit − 1 of the events in the window have left it.
      const freeing = events[events.length - rule.limit]?.created_at ?? now.toISOString();
      retryAfterMs = Math.max(retryAfterMs, Date.parse(freeing) + rule.windowMs - now.getTime());
    }
    return { allowed: retryAfterMs === 0, retryAfterSeconds: Math.ceil(retryAfterMs / 1000) };
  }
}
