import { z } from "zod";
import type { Database } from "../storage/database.js";

/** An address the operator allowed to sign in to the playground (docs/API.md §1.6). */
export interface AllowedEmail {
  /** Normalized address (trimmed, lower-case). */
  email: string;
  /** The account the address signs in to. */
  accountId: string;
  createdAt: string;
}

const emailSchema = z.email().max(254);

/**
 * Normalizes an e-mail address for lookups: trims and lower-cases it.
 *
 * @returns the normalized address, or undefined when it is not a plausible
 *   address of at most 254 characters
 */
export function normalizeEmail(address: string): string | undefined {
  const normalized = address.trim().toLowerCase();
  return emailSchema.safeParse(normalized).success ? normalized : undefined;
}

/** Reads and writes the addresses allowed to sign in to the playground. */
export class AllowedEmailStore {
  constructor(private readonly database: Database) {}

  /**
   * Allows an address to sign in to an account; an address already allowed
   * moves to the given account. Sessions of the old account stop working
   * at once ({@link SessionStore.findByToken} checks the address's account);
   * the operator command also revokes them.
   *
   * @param email - an address already passed through {@link normalizeEmail}
   */
  async allow(email: string, accountId: string): Promise<AllowedEmail> {
    const createdAt = new Date().toISOString();
    await this.database
      .insertInto("playground_emails")
      .values({ email, account_id: accountId, created_at: createdAt })
      .onConflict((conflict) => conflict.column("email").doUpdateSet({ account_id: accountId }))
      .execute();
    return { email, accountId, createdAt };
  }

  /**
   * Withdraws an address. Its open sessions are not ended here (see
   * {@link SessionStore.revokeAllForEmail}).
   *
   * @returns true when the address was allowed before
   */
  async remove(email: string): Promise<boolean> {
    const result = await this.database
      .deleteFrom("playground_emails")
      .where("email", "=", email)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Finds an allowed address. */
  async find(email: string): Promise<AllowedEmail | undefined> {
    const row = await this.database
      .selectFrom("playground_emails")
      .selectAll()
      .where("email", "=", email)
      .executeTakeFirst();
    return row && { email: row.email, accountId: row.account_id, createdAt: row.created_at };
  }

  /** Lists allowed addresses, of one account when given, in address order. */
  async list(accountId?: string): Promise<AllowedEmail[]> {
    let query = this.database.selectFrom("playground_emails").selectAll();
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const rows = await query.orderBy("email").execute();
    return rows.map((row) => ({
      email: row.email,
      accountId: row.account_id,
      createdAt: row.created_at,
    }));
  }
}
