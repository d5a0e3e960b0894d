import type { RateLimit } from "@persona-reply/shared";

/** A rate-limit window name (the `window` of a `rateLimits` element, docs/API.md §4.1). */
export type WindowName = RateLimit["window"];

/**
 * The windows, shortest first, with their length in milliseconds: the
 * columns of a rate-limit bucket (`rate_limit_buckets`, `minute_start`,
 * `minute_count` …) that the ledger counts a request in (storage/ledger.ts),
 * and the figures the rate limiters (rate-limits/) describe.
 */
export const WINDOWS: ReadonlyArray<{ name: WindowName; milliseconds: number }> = [
  { name: "minute", milliseconds: 60_000 },
  { name: "hour", milliseconds: 3_600_000 },
  { name: "day", milliseconds: 86_400_000 },
];

/** Requests allowed per window. */
export type RateLimits = Record<WindowName, number>;

/** The counters of one key: when each window started (Unix ms) and how many it counted. */
export type WindowCounters = Record<WindowName, { start: number; count: number }>;

/**
 * The window columns of a rate-limit bucket row (`rate_limit_buckets`):
 * each window's start (Unix ms) and count, as {@link WINDOWS} names them.
 */
export interface RateLimitWindowColumns {
  minute_start: number;
  minute_count: number;
  hour_start: number;
  hour_count: number;
  day_start: number;
  day_count: number;
}
