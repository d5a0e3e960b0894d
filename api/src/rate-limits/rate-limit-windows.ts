import type { RateLimit } from "@persona-reply/shared";
import {
  type RateLimits,
  WINDOWS,
  type WindowCounters,
  type WindowName,
} from "../storage/rate-limit-buckets.js";

/** Spec §8.1: the default limits of a key during the beta. */
export const DEFAULT_RATE_LIMITS: RateLimits = { minute: 25, hour: 100, day: 500 };

/** Operator overrides of one level (key or account); null keeps the level below. */
export type RateLimitOverrides = Record<WindowName, number | null>;

/**
 * The limits in force for a key (docs/API.md §8.2 "raised on request"): the key's
 * own override, else its account's, else the default, window by window.
 */
export function resolveRateLimits(
  key: RateLimitOverrides,
  account: RateLimitOverrides,
): RateLimits {
  return {
    minute: key.minute ?? account.minute ?? DEFAULT_RATE_LIMITS.minute,
    hour: key.hour ?? account.hour ?? DEFAULT_RATE_LIMITS.hour,
    day: key.day ?? account.day ?? DEFAULT_RATE_LIMITS.day,
  };
}

/** The outcome of one request against a key's limits. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Every window's figures after this request, shortest first (the `rateLimits` array). */
  windows: RateLimit[];
  /** When refused: whole seconds until every exhausted window has reset. */
  retryAfterSeconds?: number;
}

/**
 * Describes counters as the `rateLimits` figures: `remaining` after this
 * request, `reset` in Unix seconds (rounded up). A window whose time is
 * over counts as fresh.
 */
export function describeWindows(
  counters: WindowCounters,
  limits: RateLimits,
  now: number,
): RateLimit[] {
  return WINDOWS.map(({ name, milliseconds }) => {
    const { start, count } = counters[name];
    const expired = now >= start + milliseconds;
    const used = expired ? 0 : count;
    const resetAt = expired ? now + milliseconds : start + milliseconds;
    return {
      window: name,
      limit: limits[name],
      remaining: Math.max(0, limits[name] - used),
      reset: Math.ceil(resetAt / 1000),
    };
  });
}

/**
 * Decides a refused request's figures and `Retry-After`: the longest wait
 * among the windows that are full.
 */
export function refusal(
  counters: WindowCounters,
  limits: RateLimits,
  now: number,
): RateLimitDecision {
  let waitMilliseconds = 0;
  for (const { name, milliseconds } of WINDOWS) {
    const { start, count } = counters[name];
    if (now < start + milliseconds && count >= limits[name]) {
      waitMilliseconds = Math.max(waitMilliseconds, start + milliseconds - now);
    }
  }
  return {
    allowed: false,
    windows: describeWindows(counters, limits, now),
    retryAfterSeconds: Math.max(1, Math.ceil(waitMilliseconds / 1000)),
  };
}
