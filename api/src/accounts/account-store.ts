import { randomUUID } from "node:crypto";
import type { Database } from "../storage/database.js";

/** An account: the owner of personas and API keys. */
export interface Account {
  id: string;
  name: string;
  status: AccountStatus;
  createdAt: string;
  /** ISO 4217 code of the balance's currency. */
  currency: string;
  /** Balance in micro-units (10⁻⁶) of the currency. */
  balanceMicros: number;
}

/** An account's status: only `active` accounts are served (docs/API.md §7 row 403). */
export type AccountStatus = "active" | "suspended" | "closed";

type AccountRow = {
  id: string;
  name: string;
  status: AccountStatus;
  created_at: string;
  currency: string;
  balance_micros: number;
};

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    createdAt: row.created_at,
    currency: row.currency,
    balanceMicros: Number(row.balance_micros),
  };
}

/** Reads and writes accounts. */
export class AccountStore {
  constructor(private readonly database: Database) {}

  /** Creates an active account and returns it. */
  async create(name: string): Promise<Account> {
    const account: Account = {
      id: randomUUID(),
      name,
      status: "active",
      createdAt: new Date().toISOString(),
      currency: "USD",
      balanceMicros: 0,
    };
    await this.database
      .insertInto("accounts")
      .values({
        id: account.id,
        name: account.name,
        status: account.status,
        created_at: account.createdAt,
      })
      .execute();
    return account;
  }

  /** Finds an account by ID. */
  async find(id: string): Promise<Account | undefined> {
    const row = await this.database
      .selectFrom("accounts")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    return row && toAccount(row);
  }

  /** Lists every account, oldest first. */
  async list(): Promise<Account[]> {
    const rows = await this.database
      .selectFrom("accounts")
      .selectAll()
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(toAccount);
  }

  /**
   * Sets an account's status; keys of an account that is not active answer
   * 403 "API key not associated with an active billing account".
   *
   * @returns false when no such account exists
   */
  async setStatus(id: string, status: AccountStatus): Promise<boolean> {
    const result = await this.database
      .updateTable("accounts")
      .set({ status })
      .where("id", "=", id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
