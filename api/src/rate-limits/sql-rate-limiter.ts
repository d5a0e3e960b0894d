import { deadlineIn } from "../storage/deadline.js";
import type { RateLimits, WindowCounters } from "../storage/rate-limit-buckets.js";
import type { Store } from "../storage/store.js";
import { describeWindows, type RateLimitDecision, refusal } from "./rate-limit-windows.js";
import type { RateLimiter } from "./rate-limiter.js";

/**
 * Rate limits kept in the database (SQLite or PostgreSQL): a bucket's
 * three windows in one row, checked and counted by one conditional
 * statement (storage/ledger.ts `admit`, implemented per dialect), so
 * concurrent requests across instances never pass more than the limit.
 * On the request path the count shares the reservation's transaction; this
 * class counts alone (playground sign-in, tests).
 */
export class SqlRateLimiter implements RateLimiter {
  readonly inStore = true;

  constructor(private readonly store: Pick<Store, "database" | "ledger" | "timeoutMs">) {}

  async consume(bucket: string, limits: RateLimits, now = Date.now()): Promise<RateLimitDecision> {
    const outcome = await this.store.ledger.admit(
      { rateLimit: { bucket, limits, now } },
      deadlineIn(this.store.timeoutMs),
    );
    if (outcome.counters === undefined) throw new Error("a rate-limit check returned no counters");
    return outcome.admitted
      ? { allowed: true, windows: describeWindows(outcome.counters, limits, now) }
      : refusal(outcome.counters, limits, now);
  }

  /** Nothing to give back: a request whose transaction failed counted nothing. */
  async refund(): Promise<void> {}

  /** One indexed read of the bucket rows (`bucket` is their primary key). */
  async peek(buckets: readonly string[]): Promise<Map<string, WindowCounters>> {
    const counters = new Map<string, WindowCounters>();
    if (buckets.length === 0) return counters;
    const rows = await this.store.database
      .selectFrom("rate_limit_buckets")
      .selectAll()
      .where("bucket", "in", [...buckets])
      .execute();
    for (const row of rows) {
      counters.set(row.bucket, {
        minute: { start: Number(row.minute_start), count: Number(row.minute_count) },
        hour: { start: Number(row.hour_start), count: Number(row.hour_count) },
        day: { start: Number(row.day_start), count: Number(row.day_count) },
      });
    }
    return counters;
  }

  /** The store's readiness probe covers the counters. */
  async probe(): Promise<void> {}

  async close(): Promise<void> {}
}
