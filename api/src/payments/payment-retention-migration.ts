import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0024_x402_payments_created_at`, on both dialects: an index on
 * `x402_payments(created_at)`, so retention removes the payment rows older
 * than its cutoff a small batch at a time (`payments/payment-retention.ts`)
 * by reading only those rows, where each batch would otherwise scan the
 * whole table (its primary key, a hash, has no order in time). The request
 * path pays one more index entry per x402 payment, appended at the end.
 * Built at start-up under a lock that holds off new payments for as long
 * as it takes (on PostgreSQL; a table of one row per x402 payment).
 */
export const paymentRetentionMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createIndex("x402_payments_created_at")
      .on("x402_payments")
      .column("created_at")
      .execute();
  },
};

/** The migration by name, gathered in `api/src/schema-migrations.ts`. */
export const PAYMENT_RETENTION_MIGRATIONS: SchemaMigrations = {
  "0024_x402_payments_created_at": paymentRetentionMigration,
};
