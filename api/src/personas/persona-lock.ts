import type { Selectable } from "kysely";
import type { Database } from "../storage/store.js";
import type { PersonasTable } from "./persona-tables.js";

/** What locking a persona needs of a transaction. */
type Executor = Pick<Database, "selectFrom" | "updateTable">;

/**
 * Locks a persona's row for the rest of the transaction (PostgreSQL: the
 * row lock; SQLite: one writer) and reads it; undefined when there is none.
 *
 * @param now - ISO 8601 UTC, written to `updated_at` (the write takes the lock)
 */
export async function lockPersona(
  transaction: Executor,
  id: string,
  now: string,
): Promise<Selectable<PersonasTable> | undefined> {
  const locked = await transaction
    .updateTable("personas")
    .set({ updated_at: now })
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(locked.numUpdatedRows) === 0) return undefined;
  return transaction.selectFrom("personas").selectAll().where("id", "=", id).executeTakeFirst();
}
