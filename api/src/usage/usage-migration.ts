import type { Kysely, Migration } from "kysely";

/**
 * Migration `0008_usage_page_indexes`: covering indexes for the customer's
 * `/usage` page (issue 17). The page sums an account's last 30 days of
 * usage rows per day, persona and endpoint, and its balance entries per
 * day; with every column the sums read in the index, both queries are a
 * range scan of one index (no table lookups), on SQLite and PostgreSQL
 * alike. They replace nothing: `usage_records_account_created` and
 * `balance_entries_account_created` stay for the other readers.
 */
export const usagePageMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createIndex("usage_records_account_day_totals")
      .on("usage_records")
      .columns([
        "account_id",
        "created_at",
        "persona_id",
        "endpoint",
        "status",
        "cost_micros",
        "input_tokens",
        "output_tokens",
      ])
      .execute();
    await database.schema
      .createIndex("balance_entries_account_created_amount")
      .on("balance_entries")
      .columns(["account_id", "created_at", "amount_micros"])
      .execute();
  },
};
