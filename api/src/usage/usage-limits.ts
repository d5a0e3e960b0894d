import type { RateLimit } from "@persona-reply/shared";
import { limitsOfRow, OVERRIDE_COLUMNS } from "../rate-limits/limits-store.js";
import { describeWindows } from "../rate-limits/rate-limit-windows.js";
import type { RateLimiter } from "../rate-limits/rate-limiter.js";
import { keyBucket } from "../rate-limits/rate-limiter.js";
import type { Database } from "../storage/store.js";

/** The rate-limit windows of one active key as they stand (docs/API.md §8.1). */
export interface KeyWindows {
  keyId: string;
  name: string;
  /** `prk_…` and the last four characters. */
  masked: string;
  /** Shortest window first; `used` = limit − remaining. */
  windows: Array<RateLimit & { used: number }>;
}

/**
 * The current windows of every active key of an account: the limits in
 * force (key override, else account override, else the defaults) and the
 * counters, read without counting anything (RateLimiter.peek). One query
 * for the keys (indexed by `account_id`), one read of their counters.
 *
 * @param now - Unix milliseconds; windows that are over show as fresh
 * @throws {StorageUnavailableError} when the counters cannot be reached
 */
export async function readKeyWindows(
  database: Database,
  limiter: RateLimiter,
  accountId: string,
  now = Date.now(),
): Promise<KeyWindows[]> {
  const keys = await database
    .selectFrom("api_keys")
    .innerJoin("accounts", "accounts.id", "api_keys.account_id")
    .select([
      "api_keys.id as id",
      "api_keys.name as name",
      "api_keys.masked as masked",
      ...OVERRIDE_COLUMNS,
    ])
    .where("api_keys.account_id", "=", accountId)
    .where("api_keys.revoked_at", "is", null)
    .orderBy("api_keys.created_at")
    .orderBy("api_keys.id")
    .execute();
  const counters = await limiter.peek(keys.map((key) => keyBucket(key.id)));
  const fresh = { start: -Infinity, count: 0 };
  return keys.map((key) => {
    const limits = limitsOfRow(key);
    const stored = counters.get(keyBucket(key.id)) ?? { minute: fresh, hour: fresh, day: fresh };
    return {
      keyId: key.id,
      name: key.name,
      masked: key.masked,
      windows: describeWindows(stored, limits, now).map((window) => ({
        ...window,
        used: window.limit - window.remaining,
      })),
    };
  });
}
