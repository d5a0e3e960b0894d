import { randomUUID } from "node:crypto";
import type { PageSession, SessionLookup } from "../pages/page-session.js";
import type { Database } from "../storage/database.js";
import type { PlaygroundSessionsTable } from "./playground-tables.js";
import { generateSecretToken, hashSecretToken } from "./secret-token.js";

/** A signed-in playground session (the pages' {@link PageSession}). */
export type PlaygroundSession = PageSession;

/** How often `last_seen_at` is refreshed at most, so page views rarely write. */
const LAST_SEEN_RESOLUTION_MS = 60_000;
/** Longest User-Agent kept for the sessions page. */
const USER_AGENT_LENGTH = 200;

function toSession(row: PlaygroundSessionsTable): PlaygroundSession {
  return {
    id: row.id,
    accountId: row.account_id,
    email: row.email,
    userAgent: row.user_agent,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastSeenAt: row.last_seen_at,
  };
}

/**
 * Server-side playground sessions. The browser holds a 256-bit secret in an
 * HttpOnly cookie; only its SHA-256 hash is stored, so a session is revoked
 * by marking its row, and a copy of the table signs nobody in.
 */
export class SessionStore implements SessionLookup {
  /**
   * @param lifetimeMs - how long a session lasts after sign-in, in milliseconds
   */
  constructor(
    private readonly database: Database,
    readonly lifetimeMs: number,
  ) {}

  /**
   * Starts a session after a successful sign-in.
   *
   * @returns the session and the cookie secret (set it as the cookie, never log it)
   */
  async create(
    input: { accountId: string; email: string; userAgent: string | undefined },
    now = new Date(),
  ): Promise<{ session: PlaygroundSession; token: string }> {
    const token = generateSecretToken();
    const row: PlaygroundSessionsTable = {
      id: randomUUID(),
      token_hash: hashSecretToken(token),
      account_id: input.accountId,
      email: input.email,
      user_agent: input.userAgent?.slice(0, USER_AGENT_LENGTH) ?? null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.lifetimeMs).toISOString(),
      last_seen_at: now.toISOString(),
      revoked_at: null,
    };
    await this.database.insertInto("playground_sessions").values(row).execute();
    return { session: toSession(row), token };
  }

  /**
   * Finds the live session a cookie secret belongs to: not revoked, not
   * expired, and its address still allowed for the session's account. An
   * address the operator withdrew, or moved to another account, signs in
   * nowhere with an older session, even one the operator's command missed.
   */
  async findByToken(token: string, now = new Date()): Promise<PlaygroundSession | undefined> {
    const row = await this.database
      .selectFrom("playground_sessions")
      .innerJoin("playground_emails", (join) =>
        join
          .onRef("playground_emails.email", "=", "playground_sessions.email")
          .onRef("playground_emails.account_id", "=", "playground_sessions.account_id"),
      )
      .selectAll("playground_sessions")
      .where("playground_sessions.token_hash", "=", hashSecretToken(token))
      .where("playground_sessions.revoked_at", "is", null)
      .where("playground_sessions.expires_at", ">", now.toISOString())
      .executeTakeFirst();
    return row && toSession(row);
  }

  /** Records activity on a session, at most once a minute. */
  async touch(session: PlaygroundSession, now = new Date()): Promise<void> {
    if (now.getTime() - Date.parse(session.lastSeenAt) < LAST_SEEN_RESOLUTION_MS) return;
    await this.database
      .updateTable("playground_sessions")
      .set({ last_seen_at: now.toISOString() })
      .where("id", "=", session.id)
      .execute();
  }

  /** Lists the live sessions of one person (e-mail address), newest first. */
  async listForEmail(email: string, now = new Date()): Promise<PlaygroundSession[]> {
    const rows = await this.database
      .selectFrom("playground_sessions")
      .selectAll()
      .where("email", "=", email)
      .where("revoked_at", "is", null)
      .where("expires_at", ">", now.toISOString())
      .orderBy("created_at", "desc")
      .orderBy("id")
      .execute();
    return rows.map(toSession);
  }

  /**
   * Revokes one of a person's sessions.
   *
   * @returns true when a live session of that address was revoked
   */
  async revoke(id: string, email: string, now = new Date()): Promise<boolean> {
    const result = await this.database
      .updateTable("playground_sessions")
      .set({ revoked_at: now.toISOString() })
      .where("id", "=", id)
      .where("email", "=", email)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Revokes every live session of an address (used when the operator
   * withdraws it or moves it to another account).
   *
   * @returns how many sessions were revoked
   */
  async revokeAllForEmail(email: string, now = new Date()): Promise<number> {
    const result = await this.database
      .updateTable("playground_sessions")
      .set({ revoked_at: now.toISOString() })
      .where("email", "=", email)
      .where("revoked_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
