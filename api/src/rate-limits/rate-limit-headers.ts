import type { RateLimit } from "@persona-reply/shared";
import { WINDOWS } from "../storage/rate-limit-buckets.js";

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers,
 * structured fields) for a key's windows, one policy per window named after
 * it: `RateLimit-Policy: "minute";q=25;w=60, …` (quota `q` per `w`
 * seconds) and `RateLimit: "minute";r=24;t=58, …` (`r` remaining, `t`
 * seconds until the window resets). The same figures as the `rateLimits`
 * array (shared/src/rate-limits.ts).
 *
 * @param nowSeconds - the current Unix time in seconds, rounded up like
 *   `reset`, for `t`
 * @example
 * rateLimitHeaders([{ window: "minute", limit: 25, remaining: 24, reset: 1700000060 }], 1700000002);
 * // { "RateLimit-Policy": '"minute";q=25;w=60', RateLimit: '"minute";r=24;t=58' }
 */
export function rateLimitHeaders(
  windows: readonly RateLimit[],
  nowSeconds: number,
): Record<"RateLimit-Policy" | "RateLimit", string> {
  const policies: string[] = [];
  const states: string[] = [];
  for (const window of windows) {
    const seconds =
      (WINDOWS.find((entry) => entry.name === window.window)?.milliseconds ?? 0) / 1000;
    policies.push(`"${window.window}";q=${window.limit};w=${seconds}`);
    // `reset` is rounded up to a whole second, so clamp to the window's length.
    const untilReset = Math.min(seconds, Math.max(0, window.reset - nowSeconds));
    states.push(`"${window.window}";r=${window.remaining};t=${untilReset}`);
  }
  return { "RateLimit-Policy": policies.join(", "), RateLimit: states.join(", ") };
}
