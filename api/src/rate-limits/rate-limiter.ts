import type { RateLimitDecision, RateLimits } from "./rate-limit-windows.js";

/**
 * Counts an API key's requests in its minute, hour and day windows and
 * decides whether one more fits (spec §8.1). Implementations are atomic
 * across every instance sharing the store, and check all windows before
 * consuming any: a request refused by one window consumes none of them.
 */
export interface RateLimiter {
  /**
   * Counts one request of a key when every window has room.
   *
   * @param now - Unix milliseconds (the caller's clock; instances keep NTP time)
   */
  consume(apiKeyId: string, limits: RateLimits, now?: number): Promise<RateLimitDecision>;
  /** Releases connections the limiter holds of its own (Redis). */
  close(): Promise<void>;
}
