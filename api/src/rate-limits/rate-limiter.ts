import type { RateLimits, WindowCounters } from "../storage/rate-limit-buckets.js";
import type { RateLimitDecision } from "./rate-limit-windows.js";

/**
 * Counts requests in a bucket's minute, hour and day windows and decides
 * whether one more fits (docs/API.md §8.1) — the one rate-limit concept of the
 * service, for API keys (the key's ID), playground accounts
 * (`playground:<accountId>`) and sign-in attempts alike. Implementations
 * are atomic across every instance sharing the store, and check all
 * windows before consuming any: a request refused by one window consumes
 * none of them.
 */
export interface RateLimiter {
  /**
   * Whether the counters live in the database: the request path then
   * counts a request in the same transaction that holds its reservation
   * (storage/ledger.ts `admit`) instead of calling {@link consume}.
   */
  readonly inStore: boolean;
  /**
   * Counts one request in a bucket when every window has room.
   *
   * @param now - Unix milliseconds (the caller's clock; instances keep NTP time)
   * @throws {StorageUnavailableError} when the counters cannot be reached in time
   */
  consume(bucket: string, limits: RateLimits, now?: number): Promise<RateLimitDecision>;
  /**
   * Gives back a count {@link consume} made at `now`, for a request that
   * then failed for a reason of ours (the store did not answer): such a
   * request consumes no window. Best effort; never throws.
   */
  refund(bucket: string, now: number): Promise<void>;
  /**
   * Reads the counters of some buckets without counting anything (the
   * customer's `/usage` page). A window whose time is over is returned as
   * it was stored; {@link describeWindows} shows it as fresh.
   *
   * @returns each bucket that has counters → its counters; buckets never used (or expired from Redis) are missing
   * @throws {StorageUnavailableError} when the counters cannot be reached in time
   */
  peek(buckets: readonly string[]): Promise<Map<string, WindowCounters>>;
  /**
   * Proves the counters can be reached (readiness); the database's own
   * probe covers a limiter that lives in it.
   *
   * @throws {StorageUnavailableError} naming what failed
   */
  probe(): Promise<void>;
  /** Releases connections the limiter holds of its own (Redis). */
  close(): Promise<void>;
}

/** The bucket of an API key's requests: the key's ID (other buckets carry a `kind:` prefix). */
export function keyBucket(apiKeyId: string): string {
  return apiKeyId;
}
