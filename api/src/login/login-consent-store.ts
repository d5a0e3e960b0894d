import { createHash } from "node:crypto";
import type { Database } from "../storage/database.js";

/** A consent of the browser login, named by its login request's `state` and the account answering it. */
export interface LoginConsent {
  state: string;
  accountId: string;
}

/** Thrown inside the consent's transaction when it was used already, so the transaction rolls back. */
class ConsentUsedError extends Error {}

function stateHash(state: string): string {
  return createHash("sha256").update(state).digest("hex");
}

/**
 * The browser login's consents, each usable once: a login
 * request (`state`, docs/API.md §4.5) is answered by one approval or one denial,
 * and an approval creates exactly one key. The once-only rule is the
 * table's primary key, written in the same transaction as the key, so it
 * holds across concurrent posts and across instances sharing the store,
 * on SQLite and PostgreSQL alike. Rows are kept: a `state` is the caller's
 * random value for one login, never to be answered again.
 */
export class LoginConsentStore {
  constructor(private readonly database: Database) {}

  /** Whether the login request with this `state` was answered already. */
  async isUsed(state: string): Promise<boolean> {
    const row = await this.database
      .selectFrom("login_consents")
      .select("state_hash")
      .where("state_hash", "=", stateHash(state))
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Uses a consent once for an approval: records it and runs `create` (which
   * makes the key, inside the same transaction) only if it was not used.
   *
   * @param create - makes the key in the given transaction; returns it and its id
   * @returns what `create` returned, or undefined when the consent was used
   *   already (then nothing was created)
   * @throws whatever `create` or the store throws (the transaction is rolled back)
   */
  async approveOnce<T>(
    consent: LoginConsent,
    create: (transaction: Database) => Promise<{ result: T; keyId: string }>,
  ): Promise<T | undefined> {
    try {
      return await this.database.transaction().execute(async (transaction) => {
        const used = await this.claim(transaction, consent, "approve");
        if (!used) throw new ConsentUsedError();
        const { result, keyId } = await create(transaction);
        await transaction
          .updateTable("login_consents")
          .set({ key_id: keyId })
          .where("state_hash", "=", stateHash(consent.state))
          .execute();
        return result;
      });
    } catch (error) {
      if (error instanceof ConsentUsedError) return undefined;
      throw error;
    }
  }

  /**
   * Uses a consent once for a denial.
   *
   * @returns false when the consent was used already
   */
  deny(consent: LoginConsent): Promise<boolean> {
    return this.claim(this.database, consent, "deny");
  }

  /** Inserts the consent's row unless it exists; true when this call inserted it. */
  private async claim(
    database: Database,
    consent: LoginConsent,
    decision: "approve" | "deny",
  ): Promise<boolean> {
    const inserted = await database
      .insertInto("login_consents")
      .values({
        state_hash: stateHash(consent.state),
        account_id: consent.accountId,
        decision,
        key_id: null,
        used_at: new Date().toISOString(),
      })
      .onConflict((conflict) => conflict.column("state_hash").doNothing())
      .executeTakeFirst();
    return (inserted.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }
}
