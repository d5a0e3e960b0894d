import { randomUUID } from "node:crypto";
import type { Database } from "../storage/database.js";

/** An account: the owner of personas and API keys. */
export interface Account {
  id: string;
  name: string;
  status: "active" | "suspended" | "closed";
  createdAt: string;
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
    return row && { id: row.id, name: row.name, status: row.status, createdAt: row.created_at };
  }

  /** Lists every account, oldest first. */
  async list(): Promise<Account[]> {
    const rows = await this.database
      .selectFrom("accounts")
      .selectAll()
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      status: row.status,
      createdAt: row.created_at,
    }));
  }
}
