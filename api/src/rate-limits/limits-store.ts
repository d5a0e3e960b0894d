import type { Database } from "../storage/database.js";
import type { RateLimits, WindowName } from "../storage/rate-limit-buckets.js";
import { resolveRateLimits } from "./rate-limit-windows.js";

/** Limits to set: a number raises or lowers a window, null goes back to the level below. */
export type RateLimitChange = Partial<Record<WindowName, number | null>>;

function columns(change: RateLimitChange) {
  const set: Partial<Record<`rate_limit_${WindowName}`, number | null>> = {};
  for (const [window, value] of Object.entries(change) as Array<[WindowName, number | null]>) {
    if (value !== null && (!Number.isSafeInteger(value) || value < 1)) {
      throw new RangeError(`the ${window} limit must be a whole number of requests, at least 1`);
    }
    set[`rate_limit_${window}`] = value;
  }
  return set;
}

/**
 * The operator's rate-limit overrides of a key and of its account, as
 * columns of `api_keys` joined with `accounts` (null: not overridden).
 */
export const OVERRIDE_COLUMNS = [
  "api_keys.rate_limit_minute as key_minute",
  "api_keys.rate_limit_hour as key_hour",
  "api_keys.rate_limit_day as key_day",
  "accounts.rate_limit_minute as account_minute",
  "accounts.rate_limit_hour as account_hour",
  "accounts.rate_limit_day as account_day",
] as const;

/** The name a selected column is read under (`… as name`). */
type AliasOf<Column> = Column extends `${string} as ${infer Alias}` ? Alias : never;

/** The rate limits in force for a row selected with {@link OVERRIDE_COLUMNS}. */
export function limitsOfRow(
  row: Record<AliasOf<(typeof OVERRIDE_COLUMNS)[number]>, number | null>,
): RateLimits {
  return resolveRateLimits(
    { minute: row.key_minute, hour: row.key_hour, day: row.key_day },
    { minute: row.account_minute, hour: row.account_hour, day: row.account_day },
  );
}

/**
 * The operator's rate-limit overrides (docs/API.md §8.2 "limits may be raised on
 * request"): per key, or per account for all its keys. Keys without an
 * override (every key made with `persona-admin key create` or in the
 * playground) get the defaults of docs/API.md §8.1.
 */
export class LimitsStore {
  constructor(private readonly database: Database) {}

  /**
   * Sets windows of one key.
   *
   * @returns false when no such key exists
   * @throws {RangeError} for a limit that is not a whole number ≥ 1
   */
  async setForKey(apiKeyId: string, change: RateLimitChange): Promise<boolean> {
    const set = columns(change);
    if (Object.keys(set).length === 0) return true;
    const result = await this.database
      .updateTable("api_keys")
      .set(set)
      .where("id", "=", apiKeyId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Sets windows of every key of an account that has no override of its own.
   *
   * @returns false when no such account exists
   * @throws {RangeError} for a limit that is not a whole number ≥ 1
   */
  async setForAccount(accountId: string, change: RateLimitChange): Promise<boolean> {
    const set = columns(change);
    if (Object.keys(set).length === 0) return true;
    const result = await this.database
      .updateTable("accounts")
      .set(set)
      .where("id", "=", accountId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** The limits in force for a key, or undefined when no such key exists. */
  async limitsOfKey(apiKeyId: string): Promise<RateLimits | undefined> {
    const row = await this.database
      .selectFrom("api_keys")
      .innerJoin("accounts", "accounts.id", "api_keys.account_id")
      .select(OVERRIDE_COLUMNS)
      .where("api_keys.id", "=", apiKeyId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return limitsOfRow(row);
  }

  /**
   * Deletes rate-limit buckets idle for two days (their day window long
   * over): sign-in clients and addresses come and go. A bucket deleted and
   * used again starts fresh, as it would have anyway.
   *
   * @returns how many were deleted
   */
  async pruneIdleBuckets(now = Date.now()): Promise<number> {
    const result = await this.database
      .deleteFrom("rate_limit_buckets")
      .where("day_start", "<", now - 2 * 86_400_000)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
