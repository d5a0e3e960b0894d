import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { Database } from "../../storage/store.js";
import type { ReservationsDialect } from "../reservations-dialect.js";

/**
 * The one-row table whose row PostgreSQL's crash recovery (or a promoted
 * replica, a restored backup) removes together with the holds of
 * `balance_reservations` (both unlogged, migration 0016): when it is
 * empty, the holds were lost.
 */
export const HOLDS_MARKER_TABLE = "balance_reservations_marker";

/**
 * After the server lost the holds ({@link HOLDS_MARKER_TABLE} is empty),
 * sets every account's `reserved_micros` to the sum of the holds that are
 * there, then puts the marker back. One transaction: the accounts that
 * hold anything are locked first, in key order as admissions lock them,
 * so the sums are read (by the next statement, on a newer snapshot) while
 * no admission or settlement of theirs can change them. Several instances
 * may do it at once; the result is the same.
 */
async function reconcileLostHolds(database: Database): Promise<number> {
  const marker = sql.table(HOLDS_MARKER_TABLE);
  const present = await sql<{ id: number }>`select id from ${marker}`.execute(database);
  if (present.rows.length > 0) return 0;
  return database.transaction().execute(async (transaction) => {
    const locked = await sql<{ id: string }>`select id from accounts
      where reserved_micros <> 0 order by id for update`.execute(transaction);
    const ids = locked.rows.map((row) => row.id);
    const corrected = await sql`update accounts a set reserved_micros = coalesce(
        (select sum(r.amount_micros) from balance_reservations r where r.account_id = a.id), 0)
      where a.id = any(${ids}::text[]) and a.reserved_micros <> coalesce(
        (select sum(r.amount_micros) from balance_reservations r where r.account_id = a.id), 0)`.execute(
      transaction,
    );
    await sql`insert into ${marker} (id) values (1) on conflict do nothing`.execute(transaction);
    return Number(corrected.numAffectedRows ?? 0);
  });
}

/**
 * Reservations on PostgreSQL: several instances share the database, each
 * named at random unless the operator names it; the holds are unlogged
 * (fast to write) and reconciled when the server lost them.
 */
export const postgresReservations: ReservationsDialect = {
  defaultInstanceId: () => randomUUID(),
  reconcileLostHolds,
};
