import { deadlineIn } from "../storage/deadline.js";
import type { Store } from "../storage/store.js";
import {
  describeWindows,
  type RateLimitDecision,
  type RateLimits,
  refusal,
} from "./rate-limit-windows.js";
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

  constructor(private readonly store: Pick<Store, "ledger" | "timeoutMs">) {}

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

  /** The store's readiness probe covers the counters. */
  async probe(): Promise<void> {}

  async close(): Promise<void> {}
}
