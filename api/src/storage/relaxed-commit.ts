import { type Kysely, sql, type Transaction } from "kysely";

/**
 * Lets a PostgreSQL transaction commit without waiting for its WAL flush
 * (`SET LOCAL synchronous_commit = off`). Used only for writes the service
 * can lose in a database-server crash without harm — rate-limit counters
 * and balance reservations, each undone with its own row — never for the
 * ledger, whose settle transaction keeps the server's durable default.
 * PostgreSQL never applies such a commit partly: a crash loses whole
 * recent transactions, never consistency. SQLite needs no such step: it
 * runs in WAL mode with `synchronous = NORMAL`, which survives any crash
 * of the process (see database.ts).
 *
 * @param relaxed - true on PostgreSQL; false leaves the transaction as it is
 */
export async function relaxCommit<Schema>(
  transaction: Transaction<Schema> | Kysely<Schema>,
  relaxed: boolean,
): Promise<void> {
  if (relaxed) await sql`set local synchronous_commit = off`.execute(transaction);
}
