import { randomUUID } from "node:crypto";
import type { RateLimitOverrides } from "../rate-limits/rate-limit-windows.js";
import type { ChangeFeed } from "../storage/change-feed.js";
import type { Database } from "../storage/database.js";
import { LookupCache } from "../storage/lookup-cache.js";
import { generateApiKey, hashApiKey, maskApiKey } from "./api-key.js";
import type { ApiKeysTable } from "./key-tables.js";

/** An API key's record: never the key itself. */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** Prefix and last four, e.g. `prk_…Ab3d`. */
  masked: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** An `api_keys` row as the record of its key (never the key itself: only its hash is stored). */
function toApiKeyRecord(row: ApiKeysTable): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    masked: row.masked,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** A key found by its hash, with its account's status. */
export interface KeyOwner extends ApiKeyRecord {
  accountStatus: "active" | "suspended" | "closed";
  /** The operator's rate-limit overrides of this key and of its account (docs/API.md §8.2). */
  rateLimitOverrides: { key: RateLimitOverrides; account: RateLimitOverrides };
}

/** How often `last_used_at` is refreshed at most, so the hot path rarely writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Keys kept in memory at most (each a few hundred bytes). */
const CACHED_KEYS = 10_000;
/** Longest any cached key lives, whatever the change feed says (a safety net). */
const CACHE_TTL_MS = 60_000;

/**
 * Creates, finds, lists and revokes API keys; stores only their hashes.
 * Lookups by key are served from memory when a change feed is given,
 * emptied on every change of keys and accounts (a revoked key is
 * refused everywhere within a second).
 */
export class KeyStore {
  private readonly owners: LookupCache<KeyOwner> | undefined;
  /** When each key's `last_used_at` was last written by this process (Unix ms). */
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly database: Database,
    changes?: ChangeFeed,
  ) {
    this.owners =
      changes === undefined
        ? undefined
        : new LookupCache(changes, { max: CACHED_KEYS, ttlMs: CACHE_TTL_MS });
  }

  /**
   * Creates a key for an account.
   *
   * @param within - a transaction to insert the key in (default: the store
   *   itself), so the key exists only if the rest of that transaction commits
   * @returns the record and the plaintext key, which exists only in this
   *   return value: show it once, never log it
   */
  async create(
    accountId: string,
    name: string,
    within: Database = this.database,
  ): Promise<{ record: ApiKeyRecord; key: string }> {
    const key = generateApiKey();
    const record: ApiKeyRecord = {
      id: randomUUID(),
      accountId,
      name,
      masked: maskApiKey(key),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await within
      .insertInto("api_keys")
      .values({
        id: record.id,
        account_id: accountId,
        name,
        key_hash: hashApiKey(key),
        masked: record.masked,
        created_at: record.createdAt,
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    return { record, key };
  }

  /** Finds the key whose hash matches a presented key, revoked or not. */
  findByKey(key: string): Promise<KeyOwner | undefined> {
    const hash = hashApiKey(key);
    return this.owners === undefined
      ? this.findByHash(hash)
      : this.owners.get(hash, () => this.findByHash(hash));
  }

  private async findByHash(hash: string): Promise<KeyOwner | undefined> {
    const row = await this.database
      .selectFrom("api_keys")
      .innerJoin("accounts", "accounts.id", "api_keys.account_id")
      .selectAll("api_keys")
      .select([
        "accounts.status as account_status",
        "accounts.rate_limit_minute as account_rate_limit_minute",
        "accounts.rate_limit_hour as account_rate_limit_hour",
        "accounts.rate_limit_day as account_rate_limit_day",
      ])
      .where("api_keys.key_hash", "=", hash)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      ...toApiKeyRecord(row),
      accountStatus: row.account_status,
      rateLimitOverrides: {
        key: { minute: row.rate_limit_minute, hour: row.rate_limit_hour, day: row.rate_limit_day },
        account: {
          minute: row.account_rate_limit_minute,
          hour: row.account_rate_limit_hour,
          day: row.account_rate_limit_day,
        },
      },
    };
  }

  /** Records a use of the key, at most once a minute per key. */
  async touch(record: ApiKeyRecord, now = new Date()): Promise<void> {
    const last = Math.max(
      record.lastUsedAt === null ? 0 : Date.parse(record.lastUsedAt),
      this.touched.get(record.id) ?? 0,
    );
    if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    if (this.touched.size > CACHED_KEYS) this.touched.clear();
    this.touched.set(record.id, now.getTime());
    await this.database
      .updateTable("api_keys")
      .set({ last_used_at: now.toISOString() })
      .where("id", "=", record.id)
      .execute();
  }

  /** Lists an account's keys (or all keys), oldest first. */
  async list(accountId?: string): Promise<ApiKeyRecord[]> {
    let query = this.database.selectFrom("api_keys").selectAll();
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const rows = await query.orderBy("created_at").orderBy("id").execute();
    return rows.map(toApiKeyRecord);
  }

  /**
   * Revokes a key by ID; a revoked key answers 401 from then on.
   *
   * @returns true when a key that was active is now revoked
   */
  async revoke(id: string): Promise<boolean> {
    const result = await this.database
      .updateTable("api_keys")
      .set({ revoked_at: new Date().toISOString() })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
