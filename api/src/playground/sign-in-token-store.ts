import type { Database } from "../storage/database.js";
import { generateSecretToken, hashSecretToken } from "./secret-token.js";

/** How long a sign-in link works: 15 minutes. */
export const SIGN_IN_LINK_LIFETIME_MS = 15 * 60 * 1000;

/** What a sign-in link token stands for. */
export interface SignInGrant {
  email: string;
  accountId: string;
  /** Same-origin path to go to after sign-in, or null for the default page. */
  returnTo: string | null;
  expiresAt: string;
}

/**
 * One-time sign-in link tokens: 256 random bits, stored as a SHA-256 hash,
 * usable once, expiring after {@link SIGN_IN_LINK_LIFETIME_MS}.
 */
export class SignInTokenStore {
  constructor(private readonly database: Database) {}

  /**
   * Issues a token for an allowed address.
   *
   * @returns the plaintext token: it goes into the mailed link and nowhere else
   */
  async issue(
    grant: Omit<SignInGrant, "expiresAt">,
    now = new Date(),
  ): Promise<{ token: string; expiresAt: string }> {
    const token = generateSecretToken();
    const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_LIFETIME_MS).toISOString();
    await this.database
      .insertInto("sign_in_tokens")
      .values({
        token_hash: hashSecretToken(token),
        email: grant.email,
        account_id: grant.accountId,
        return_to: grant.returnTo,
        created_at: now.toISOString(),
        expires_at: expiresAt,
        used_at: null,
      })
      .execute();
    // Expired tokens are useless; dropping them here keeps the table small without a job.
    await this.database
      .deleteFrom("sign_in_tokens")
      .where("expires_at", "<", new Date(now.getTime() - SIGN_IN_LINK_LIFETIME_MS).toISOString())
      .execute();
    return { token, expiresAt };
  }

  /** Looks a token up without using it: undefined when unknown, used or expired. */
  async peek(token: string, now = new Date()): Promise<SignInGrant | undefined> {
    const row = await this.database
      .selectFrom("sign_in_tokens")
      .selectAll()
      .where("token_hash", "=", hashSecretToken(token))
      .where("used_at", "is", null)
      .where("expires_at", ">", now.toISOString())
      .executeTakeFirst();
    return (
      row && {
        email: row.email,
        accountId: row.account_id,
        returnTo: row.return_to,
        expiresAt: row.expires_at,
      }
    );
  }

  /**
   * Uses a token up. The update is conditional, so of two concurrent uses of
   * one link only one succeeds.
   *
   * @returns the grant, or undefined when the token is unknown, used or expired
   */
  async consume(token: string, now = new Date()): Promise<SignInGrant | undefined> {
    const grant = await this.peek(token, now);
    if (grant === undefined) return undefined;
    const result = await this.database
      .updateTable("sign_in_tokens")
      .set({ used_at: now.toISOString() })
      .where("token_hash", "=", hashSecretToken(token))
      .where("used_at", "is", null)
      .where("expires_at", ">", now.toISOString())
      .executeTakeFirst();
    return result.numUpdatedRows === 1n ? grant : undefined;
  }
}
