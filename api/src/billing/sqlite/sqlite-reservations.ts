import { createHash } from "node:crypto";
import type { ReservationsDialect } from "../reservations-dialect.js";

/**
 * Reservations on SQLite: one instance serves a file, so its name is
 * derived from the file's path and a single instance restarted after a
 * crash releases what it held at once; its holds are logged
 * like every other table, so none is lost.
 */
export const sqliteReservations: ReservationsDialect = {
  defaultInstanceId: (location) =>
    `sqlite-${createHash("sha256").update(location).digest("hex").slice(0, 16)}`,
  reconcileLostHolds: async () => 0,
};
