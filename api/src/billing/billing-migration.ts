import type { Kysely, Migration } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/**
 * Migration `0002_billing_limits_payments`: account balances and rate-limit
 * overrides, per-key rate-limit overrides, the self-serve price of a
 * persona, and the tables of reservations, the balance ledger, the usage
 * ledger, rate-limit counters and x402 payments. Portable column types only
 * (text, integer, bigint) so it runs on SQLite and PostgreSQL alike.
 */
export const billingMigration: Migration = {
  async up(database: Kysely<unknown>) {
    const addColumns = async (
      table: string,
      columns: Array<[string, "text" | "integer" | "bigint", string | number | undefined]>,
    ) => {
      for (const [name, type, defaultValue] of columns) {
        await database.schema
          .alterTable(table)
          .addColumn(name, type, (column) =>
            defaultValue === undefined ? column : column.notNull().defaultTo(defaultValue),
          )
          .execute();
      }
    };
    await addColumns("accounts", [
      ["currency", "text", "USD"],
      ["balance_micros", "bigint", 0],
      ["reserved_micros", "bigint", 0],
      ["rate_limit_minute", "integer", undefined],
      ["rate_limit_hour", "integer", undefined],
      ["rate_limit_day", "integer", undefined],
    ]);
    await addColumns("api_keys", [
      ["rate_limit_minute", "integer", undefined],
      ["rate_limit_hour", "integer", undefined],
      ["rate_limit_day", "integer", undefined],
    ]);
    await addColumns("personas", [["self_serve_price_micros", "bigint", undefined]]);

    await database.schema
      .createTable("balance_reservations")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("account_id", "text", (column) =>
        column.notNull().references("accounts.id").onDelete("cascade"),
      )
      .addColumn("amount_micros", "bigint", (column) => column.notNull())
      .addColumn("instance_id", "text", (column) => column.notNull())
      .addColumn("request_id", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("expires_at", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createIndex("balance_reservations_expires_at")
      .on("balance_reservations")
      .column("expires_at")
      .execute();
    await database.schema
      .createIndex("balance_reservations_instance_id")
      .on("balance_reservations")
      .column("instance_id")
      .execute();

    await database.schema
      .createTable("usage_records")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("account_id", "text", (column) => column.notNull().references("accounts.id"))
      .addColumn("api_key_id", "text")
      .addColumn("persona_id", "text")
      .addColumn("endpoint", "text", (column) => column.notNull())
      .addColumn("status", "integer", (column) => column.notNull())
      .addColumn("input_tokens", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("output_tokens", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("cost_micros", "bigint", (column) => column.notNull().defaultTo(0))
      .addColumn("request_id", "text")
      .addColumn("payment_method", "text", (column) => column.notNull())
      .addColumn("payment_reference", "text")
      .execute();
    await database.schema
      .createIndex("usage_records_account_created")
      .on("usage_records")
      .columns(["account_id", "created_at"])
      .execute();
    await database.schema
      .createIndex("usage_records_request_id")
      .on("usage_records")
      .column("request_id")
      .execute();

    await database.schema
      .createTable("balance_entries")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("account_id", "text", (column) => column.notNull().references("accounts.id"))
      .addColumn("kind", "text", (column) => column.notNull())
      .addColumn("amount_micros", "bigint", (column) => column.notNull())
      .addColumn("usage_id", "text", (column) => column.references("usage_records.id"))
      .addColumn("note", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createIndex("balance_entries_account_created")
      .on("balance_entries")
      .columns(["account_id", "created_at"])
      .execute();

    await database.schema
      .createTable("rate_limit_counters")
      .addColumn("api_key_id", "text", (column) =>
        column.primaryKey().references("api_keys.id").onDelete("cascade"),
      )
      .addColumn("minute_start", "bigint", (column) => column.notNull())
      .addColumn("minute_count", "integer", (column) => column.notNull())
      .addColumn("hour_start", "bigint", (column) => column.notNull())
      .addColumn("hour_count", "integer", (column) => column.notNull())
      .addColumn("day_start", "bigint", (column) => column.notNull())
      .addColumn("day_count", "integer", (column) => column.notNull())
      .execute();

    await database.schema
      .createTable("x402_payments")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("persona_id", "text", (column) => column.notNull())
      .addColumn("amount_micros", "bigint", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("payer", "text")
      .addColumn("transaction_reference", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .execute();
  },
};

/** Billing's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const BILLING_MIGRATIONS: SchemaMigrations = {
  "0002_billing_limits_payments": billingMigration,
};
