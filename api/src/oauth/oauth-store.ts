import { randomBytes, randomUUID } from "node:crypto";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { hashSecretToken } from "../playground/secret-token.js";
import type { RateLimitOverrides } from "../rate-limits/rate-limit-windows.js";
import type { ChangeFeed } from "../storage/change-feed.js";
import type { Database } from "../storage/database.js";
import { LookupCache } from "../storage/lookup-cache.js";

/** Prefix of an access token (`pra_` + 43 base64url characters): tells it from an API key (`prk_`). */
export const ACCESS_TOKEN_PREFIX = "pra_";
/** Prefix of a refresh token. */
export const REFRESH_TOKEN_PREFIX = "prr_";

/** Lifetime of an access token, in seconds: short, a refresh gets the next one. */
export const ACCESS_TOKEN_TTL_SECONDS = 3_600;
/** Lifetime of a refresh token, in seconds (each refresh makes a new one). */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3_600;
/** Lifetime of an authorization code, in seconds. */
export const CODE_TTL_SECONDS = 60;

/** Access tokens kept in memory at most. */
const CACHED_TOKENS = 10_000;
/** Longest any cached token lives, whatever the change feed says (a safety net). */
const CACHE_TTL_MS = 60_000;
/** How often a grant's `last_used_at` is refreshed at most. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** A connected app: an account's approval of a client for one persona (never a token). */
export interface OAuthGrant {
  id: string;
  clientId: string;
  /** The client's `client_name`, or its ID when it gave none. */
  clientName: string;
  accountId: string;
  personaId: string;
  /** The RFC 8707 resource its access tokens are bound to. */
  resource: string;
  redirectUri: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What an access token stands for, as the request path needs it. */
export interface AccessGrant {
  grantId: string;
  clientId: string;
  accountId: string;
  personaId: string;
  resource: string;
  /** Expiry of the token, Unix seconds. */
  expiresAt: number;
  revoked: boolean;
  accountStatus: "active" | "suspended" | "closed";
  /** The operator's rate-limit overrides of the account (docs/API.md §8.2). */
  accountRateLimits: RateLimitOverrides;
  lastUsedAt: string | null;
}

/** An access and refresh token pair, in plain text: give it to the client once, never log it. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives. */
  expiresIn: number;
}

/** What a code or refresh token exchange found. */
export type Exchange =
  | { ok: true; grant: OAuthGrant; tokens: IssuedTokens }
  | { ok: false; reason: "unknown" | "expired" | "reused" | "revoked" | "mismatch" };

function newToken(prefix: string): string {
  return prefix + randomBytes(32).toString("base64url");
}

function isoIn(seconds: number, now: Date): string {
  return new Date(now.getTime() + seconds * 1000).toISOString();
}

/**
 * The OAuth authorization server's records: registered clients, grants
 * (connected apps), codes and tokens. Codes and tokens are stored only as
 * SHA-256 hashes (each carries 256 random bits). Access-token lookups are
 * served from memory when a change feed is given, emptied on every change
 * of a grant's `revoked_at` (migration 0028's triggers), so a revocation is
 * refused everywhere within a second, as an API key's.
 */
export class OAuthStore {
  private readonly access: LookupCache<AccessGrant> | undefined;
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly database: Database,
    changes?: ChangeFeed,
  ) {
    this.access =
      changes === undefined
        ? undefined
        : new LookupCache(changes, { max: CACHED_TOKENS, ttlMs: CACHE_TTL_MS });
  }

  /** A registered client's information (RFC 7591 §3.2.1), or undefined. */
  async findClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    const row = await this.database
      .selectFrom("oauth_clients")
      .selectAll()
      .where("client_id", "=", clientId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return JSON.parse(row.metadata) as OAuthClientInformationFull;
  }

  /** Stores a registered client (its full information, without any secret). */
  async registerClient(client: OAuthClientInformationFull): Promise<void> {
    await this.database
      .insertInto("oauth_clients")
      .values({
        client_id: client.client_id,
        client_name: client.client_name ?? null,
        metadata: JSON.stringify(client),
        created_at: new Date().toISOString(),
      })
      .execute();
  }

  /**
   * Creates or updates the record of a client described by a client ID
   * metadata document (its `client_id` is the document's URL), so grants
   * can reference it and the Keys page can name it.
   */
  async upsertClient(client: OAuthClientInformationFull): Promise<void> {
    const metadata = JSON.stringify(client);
    const clientName = client.client_name ?? null;
    await this.database
      .insertInto("oauth_clients")
      .values({
        client_id: client.client_id,
        client_name: clientName,
        metadata,
        created_at: new Date().toISOString(),
      })
      .onConflict((conflict) =>
        conflict.column("client_id").doUpdateSet({ client_name: clientName, metadata }),
      )
      .execute();
  }

  /**
   * Records an approval and its authorization code.
   *
   * @returns the code in plain text (for the redirect only)
   */
  async approve(approval: {
    clientId: string;
    accountId: string;
    personaId: string;
    resource: string;
    redirectUri: string;
    codeChallenge: string;
  }): Promise<string> {
    const now = new Date();
    const code = randomBytes(32).toString("base64url");
    const grantId = randomUUID();
    await this.database.transaction().execute(async (transaction) => {
      await transaction
        .insertInto("oauth_grants")
        .values({
          id: grantId,
          client_id: approval.clientId,
          account_id: approval.accountId,
          persona_id: approval.personaId,
          resource: approval.resource,
          redirect_uri: approval.redirectUri,
          created_at: now.toISOString(),
          last_used_at: null,
          revoked_at: null,
        })
        .execute();
      await transaction
        .insertInto("oauth_codes")
        .values({
          code_hash: hashSecretToken(code),
          grant_id: grantId,
          code_challenge: approval.codeChallenge,
          expires_at: isoIn(CODE_TTL_SECONDS, now),
          used_at: null,
        })
        .execute();
    });
    return code;
  }

  /** The PKCE challenge of a code of `clientId` that can still be exchanged, or undefined. */
  async challengeOf(clientId: string, code: string): Promise<string | undefined> {
    const row = await this.database
      .selectFrom("oauth_codes")
      .innerJoin("oauth_grants", "oauth_grants.id", "oauth_codes.grant_id")
      .select(["oauth_codes.code_challenge", "oauth_grants.client_id"])
      .where("oauth_codes.code_hash", "=", hashSecretToken(code))
      .executeTakeFirst();
    return row?.client_id === clientId ? row.code_challenge : undefined;
  }

  /**
   * Exchanges an authorization code (once) for tokens. A code presented a
   * second time revokes its grant and every token issued from it
   * (OAuth 2.1 §4.1.3).
   *
   * @param redirectUri - the token request's `redirect_uri`, which must equal the authorization request's
   */
  async exchangeCode(
    clientId: string,
    code: string,
    redirectUri: string | undefined,
    resource: string | undefined,
  ): Promise<Exchange> {
    const now = new Date();
    const hash = hashSecretToken(code);
    const row = await this.database
      .selectFrom("oauth_codes")
      .selectAll()
      .where("code_hash", "=", hash)
      .executeTakeFirst();
    if (row === undefined) return { ok: false, reason: "unknown" };
    const grant = await this.findGrant(row.grant_id);
    if (grant === undefined || grant.clientId !== clientId) return { ok: false, reason: "unknown" };
    const claimed = await this.database
      .updateTable("oauth_codes")
      .set({ used_at: now.toISOString() })
      .where("code_hash", "=", hash)
      .where("used_at", "is", null)
      .executeTakeFirst();
    if (claimed.numUpdatedRows === 0n) {
      await this.revokeGrant(grant.id);
      return { ok: false, reason: "reused" };
    }
    if (Date.parse(row.expires_at) <= now.getTime()) return { ok: false, reason: "expired" };
    if (grant.revokedAt !== null) return { ok: false, reason: "revoked" };
    if (
      (redirectUri !== undefined && redirectUri !== grant.redirectUri) ||
      (resource !== undefined && resource !== grant.resource)
    ) {
      return { ok: false, reason: "mismatch" };
    }
    return { ok: true, grant, tokens: await this.issue(grant.id, now) };
  }

  /**
   * Exchanges a refresh token (once) for a new pair: the old refresh token
   * is spent. A spent refresh token presented again revokes its grant, so
   * every token of the family stops working (OAuth 2.1 §4.3.1).
   */
  async exchangeRefresh(
    clientId: string,
    refreshToken: string,
    resource: string | undefined,
  ): Promise<Exchange> {
    const now = new Date();
    const hash = hashSecretToken(refreshToken);
    const row = await this.database
      .selectFrom("oauth_tokens")
      .selectAll()
      .where("token_hash", "=", hash)
      .where("kind", "=", "refresh")
      .executeTakeFirst();
    if (row === undefined) return { ok: false, reason: "unknown" };
    const grant = await this.findGrant(row.grant_id);
    if (grant === undefined || grant.clientId !== clientId) return { ok: false, reason: "unknown" };
    if (grant.revokedAt !== null) return { ok: false, reason: "revoked" };
    const claimed = await this.database
      .updateTable("oauth_tokens")
      .set({ spent_at: now.toISOString() })
      .where("token_hash", "=", hash)
      .where("spent_at", "is", null)
      .executeTakeFirst();
    if (claimed.numUpdatedRows === 0n) {
      await this.revokeGrant(grant.id);
      return { ok: false, reason: "reused" };
    }
    if (Date.parse(row.expires_at) <= now.getTime()) return { ok: false, reason: "expired" };
    if (resource !== undefined && resource !== grant.resource) {
      return { ok: false, reason: "mismatch" };
    }
    return { ok: true, grant, tokens: await this.issue(grant.id, now) };
  }

  private async issue(grantId: string, now: Date): Promise<IssuedTokens> {
    const accessToken = newToken(ACCESS_TOKEN_PREFIX);
    const refreshToken = newToken(REFRESH_TOKEN_PREFIX);
    await this.database
      .insertInto("oauth_tokens")
      .values([
        {
          token_hash: hashSecretToken(accessToken),
          grant_id: grantId,
          kind: "access",
          created_at: now.toISOString(),
          expires_at: isoIn(ACCESS_TOKEN_TTL_SECONDS, now),
          spent_at: null,
        },
        {
          token_hash: hashSecretToken(refreshToken),
          grant_id: grantId,
          kind: "refresh",
          created_at: now.toISOString(),
          expires_at: isoIn(REFRESH_TOKEN_TTL_SECONDS, now),
          spent_at: null,
        },
      ])
      .execute();
    return { accessToken, refreshToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
  }

  /** What an access token stands for (revoked or expired included), or undefined for an unknown one. */
  findAccess(accessToken: string): Promise<AccessGrant | undefined> {
    const hash = hashSecretToken(accessToken);
    return this.access === undefined
      ? this.loadAccess(hash)
      : this.access.get(hash, () => this.loadAccess(hash));
  }

  private async loadAccess(hash: string): Promise<AccessGrant | undefined> {
    const row = await this.database
      .selectFrom("oauth_tokens")
      .innerJoin("oauth_grants", "oauth_grants.id", "oauth_tokens.grant_id")
      .innerJoin("accounts", "accounts.id", "oauth_grants.account_id")
      .select([
        "oauth_tokens.expires_at",
        "oauth_grants.id as grant_id",
        "oauth_grants.client_id",
        "oauth_grants.account_id",
        "oauth_grants.persona_id",
        "oauth_grants.resource",
        "oauth_grants.revoked_at",
        "oauth_grants.last_used_at",
        "accounts.status as account_status",
        "accounts.rate_limit_minute",
        "accounts.rate_limit_hour",
        "accounts.rate_limit_day",
      ])
      .where("oauth_tokens.token_hash", "=", hash)
      .where("oauth_tokens.kind", "=", "access")
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      grantId: row.grant_id,
      clientId: row.client_id,
      accountId: row.account_id,
      personaId: row.persona_id,
      resource: row.resource,
      expiresAt: Math.floor(Date.parse(row.expires_at) / 1000),
      revoked: row.revoked_at !== null,
      accountStatus: row.account_status,
      accountRateLimits: {
        minute: row.rate_limit_minute,
        hour: row.rate_limit_hour,
        day: row.rate_limit_day,
      },
      lastUsedAt: row.last_used_at,
    };
  }

  /** Records a use of a grant, at most once a minute per grant. */
  async touch(access: AccessGrant, now = new Date()): Promise<void> {
    const last = Math.max(
      access.lastUsedAt === null ? 0 : Date.parse(access.lastUsedAt),
      this.touched.get(access.grantId) ?? 0,
    );
    if (now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    if (this.touched.size > CACHED_TOKENS) this.touched.clear();
    this.touched.set(access.grantId, now.getTime());
    await this.database
      .updateTable("oauth_grants")
      .set({ last_used_at: now.toISOString() })
      .where("id", "=", access.grantId)
      .execute();
  }

  /** The grant a token (access or refresh) belongs to, if it is `clientId`'s. */
  async grantOfToken(clientId: string, token: string): Promise<string | undefined> {
    const row = await this.database
      .selectFrom("oauth_tokens")
      .innerJoin("oauth_grants", "oauth_grants.id", "oauth_tokens.grant_id")
      .select(["oauth_grants.id", "oauth_grants.client_id"])
      .where("oauth_tokens.token_hash", "=", hashSecretToken(token))
      .executeTakeFirst();
    return row?.client_id === clientId ? row.id : undefined;
  }

  /**
   * Revokes a grant: every access and refresh token of it is refused from
   * then on (the change feed empties every instance's cache).
   *
   * @returns true when a grant that was active is now revoked
   */
  async revokeGrant(id: string): Promise<boolean> {
    const result = await this.database
      .updateTable("oauth_grants")
      .set({ revoked_at: new Date().toISOString() })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  private async findGrant(id: string): Promise<OAuthGrant | undefined> {
    return (await this.grants({ id }))[0];
  }

  /** An account's connected apps, newest first (revoked ones included). */
  listGrants(accountId: string): Promise<OAuthGrant[]> {
    return this.grants({ accountId });
  }

  private async grants(where: { id?: string; accountId?: string }): Promise<OAuthGrant[]> {
    let query = this.database
      .selectFrom("oauth_grants")
      .innerJoin("oauth_clients", "oauth_clients.client_id", "oauth_grants.client_id")
      .selectAll("oauth_grants")
      .select("oauth_clients.client_name");
    if (where.id !== undefined) query = query.where("oauth_grants.id", "=", where.id);
    if (where.accountId !== undefined) {
      query = query.where("oauth_grants.account_id", "=", where.accountId);
    }
    const rows = await query
      .orderBy("oauth_grants.created_at", "desc")
      .orderBy("oauth_grants.id")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      clientId: row.client_id,
      clientName: row.client_name ?? row.client_id,
      accountId: row.account_id,
      personaId: row.persona_id,
      resource: row.resource,
      redirectUri: row.redirect_uri,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
    }));
  }
}
