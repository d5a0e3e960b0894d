import type { DatabaseDialect } from "../storage/store.js";
import { postgresReservations } from "./postgres/postgres-reservations.js";
import type { ReservationsDialect } from "./reservations-dialect.js";
import { sqliteReservations } from "./sqlite/sqlite-reservations.js";

const RESERVATIONS_DIALECTS: Readonly<Record<DatabaseDialect, ReservationsDialect>> = {
  sqlite: sqliteReservations,
  postgres: postgresReservations,
};

/** The reservations dialect of a store's dialect. */
export function reservationsDialectOf(dialect: DatabaseDialect): ReservationsDialect {
  return RESERVATIONS_DIALECTS[dialect];
}
