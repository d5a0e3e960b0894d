import type { Database } from "../storage/store.js";

/**
 * What balance reservations (holds) do differently on each dialect,
 * behind one interface (as the request path's ledger is): who this
 * instance is when the operator does not say, and what a crash can take
 * from the holds. Chosen once, by {@link reservationsDialectOf}.
 */
export interface ReservationsDialect {
  /**
   * The name this instance tags its reservations with when
   * `PERSONA_INSTANCE_ID` is unset.
   *
   * @param location - the store's location (`Store.location`)
   */
  defaultInstanceId(location: string): string;
  /**
   * Makes every account's `reserved_micros` the sum of the holds that are
   * there again, after the database lost its holds.
   *
   * @returns how many accounts' reserved sums were corrected (0 when none were lost)
   * @throws the store's error when a statement fails (the next sweep tries again)
   */
  reconcileLostHolds(database: Database): Promise<number>;
}
