import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";

/** The columns a usage row adds to its day's totals, as SQL over a row alias (`new` or `old`). */
function usageTotals(row: "new" | "old"): string {
  return [
    `${row}.account_id`,
    `substr(${row}.created_at, 1, 10)`,
    `coalesce(${row}.persona_id, '')`,
    `${row}.endpoint`,
    "1",
    `case when ${row}.status = 200 then 1 else 0 end`,
    `${row}.input_tokens`,
    `${row}.output_tokens`,
    `${row}.cost_micros`,
  ].join(", ");
}

const USAGE_COLUMNS =
  "account_id, day, persona_id, endpoint, requests, served, input_tokens, output_tokens, cost_micros";

/** Adds a usage row to its day's totals (an upsert; `table` qualifies the old values). */
export function addUsage(row: "new"): string {
  const table = "usage_daily_totals";
  return `insert into ${table} (${USAGE_COLUMNS}) values (${usageTotals(row)})
    on conflict (account_id, day, persona_id, endpoint) do update set
      requests = ${table}.requests + excluded.requests,
      served = ${table}.served + excluded.served,
      input_tokens = ${table}.input_tokens + excluded.input_tokens,
      output_tokens = ${table}.output_tokens + excluded.output_tokens,
      cost_micros = ${table}.cost_micros + excluded.cost_micros`;
}

/** Takes a usage row out of its day's totals (before an update or a delete). */
export function removeUsage(row: "old"): string {
  return `update usage_daily_totals set
      requests = requests - 1,
      served = served - (case when ${row}.status = 200 then 1 else 0 end),
      input_tokens = input_tokens - ${row}.input_tokens,
      output_tokens = output_tokens - ${row}.output_tokens,
      cost_micros = cost_micros - ${row}.cost_micros
    where account_id = ${row}.account_id and day = substr(${row}.created_at, 1, 10)
      and persona_id = coalesce(${row}.persona_id, '') and endpoint = ${row}.endpoint`;
}

/** Adds a ledger entry to its day's sum. */
export const ADD_ENTRY = `insert into balance_daily_totals (account_id, day, amount_micros)
    values (new.account_id, substr(new.created_at, 1, 10), new.amount_micros)
    on conflict (account_id, day) do update set
      amount_micros = balance_daily_totals.amount_micros + excluded.amount_micros`;

/** Takes a ledger entry out of its day's sum. */
export const REMOVE_ENTRY = `update balance_daily_totals set amount_micros = amount_micros - old.amount_micros
    where account_id = old.account_id and day = substr(old.created_at, 1, 10)`;

/**
 * Migration `0008_usage_daily_totals`: per account and UTC day, the sums the
 * customer's `/usage` page shows, so the page reads at most
 * 30 days × personas × endpoints rows however many requests were made:
 *
 * - `usage_daily_totals`: requests, served, tokens and cost per day,
 *   persona (`''` for none) and endpoint;
 * - `balance_daily_totals`: the sum of the ledger entries of each day.
 *
 * Triggers keep them in step with `usage_records` and `balance_entries` in
 * the same transaction as every insert, update (a settlement reversed) or
 * delete, however the row is written (the request path's batched
 * statements included): per row on SQLite, a `plpgsql` function per row on
 * PostgreSQL. Existing rows are summed in once here.
 */
export const usageDailyTotalsMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("usage_daily_totals")
      .addColumn("account_id", "text", (column) => column.notNull())
      .addColumn("day", "text", (column) => column.notNull())
      .addColumn("persona_id", "text", (column) => column.notNull())
      .addColumn("endpoint", "text", (column) => column.notNull())
      .addColumn("requests", "bigint", (column) => column.notNull())
      .addColumn("served", "bigint", (column) => column.notNull())
      .addColumn("input_tokens", "bigint", (column) => column.notNull())
      .addColumn("output_tokens", "bigint", (column) => column.notNull())
      .addColumn("cost_micros", "bigint", (column) => column.notNull())
      .addPrimaryKeyConstraint("usage_daily_totals_pk", [
        "account_id",
        "day",
        "persona_id",
        "endpoint",
      ])
      .execute();
    await database.schema
      .createTable("balance_daily_totals")
      .addColumn("account_id", "text", (column) => column.notNull())
      .addColumn("day", "text", (column) => column.notNull())
      .addColumn("amount_micros", "bigint", (column) => column.notNull())
      .addPrimaryKeyConstraint("balance_daily_totals_pk", ["account_id", "day"])
      .execute();

    await sql
      .raw(
        `insert into usage_daily_totals (${USAGE_COLUMNS})
         select account_id, substr(created_at, 1, 10), coalesce(persona_id, ''), endpoint, count(*),
           sum(case when status = 200 then 1 else 0 end), sum(input_tokens), sum(output_tokens), sum(cost_micros)
         from usage_records group by account_id, substr(created_at, 1, 10), coalesce(persona_id, ''), endpoint`,
      )
      .execute(database);
    await sql
      .raw(
        `insert into balance_daily_totals (account_id, day, amount_micros)
         select account_id, substr(created_at, 1, 10), sum(amount_micros)
         from balance_entries group by account_id, substr(created_at, 1, 10)`,
      )
      .execute(database);

    if (database.getExecutor().adapter instanceof PostgresAdapter) {
      await sql
        .raw(`create or replace function persona_usage_daily_totals() returns trigger language plpgsql as $$
        begin
          if tg_op in ('UPDATE', 'DELETE') then ${removeUsage("old")}; end if;
          if tg_op in ('INSERT', 'UPDATE') then ${addUsage("new")}; end if;
          return null;
        end $$`)
        .execute(database);
      await sql
        .raw(
          "create trigger usage_records_daily_totals after insert or update or delete on usage_records for each row execute function persona_usage_daily_totals()",
        )
        .execute(database);
      await sql
        .raw(`create or replace function persona_balance_daily_totals() returns trigger language plpgsql as $$
        begin
          if tg_op in ('UPDATE', 'DELETE') then ${REMOVE_ENTRY}; end if;
          if tg_op in ('INSERT', 'UPDATE') then ${ADD_ENTRY}; end if;
          return null;
        end $$`)
        .execute(database);
      await sql
        .raw(
          "create trigger balance_entries_daily_totals after insert or update or delete on balance_entries for each row execute function persona_balance_daily_totals()",
        )
        .execute(database);
      return;
    }
    const triggers: Array<[string, string, string]> = [
      ["usage_records_daily_insert", "insert on usage_records", `${addUsage("new")};`],
      [
        "usage_records_daily_update",
        "update on usage_records",
        `${removeUsage("old")}; ${addUsage("new")};`,
      ],
      ["usage_records_daily_delete", "delete on usage_records", `${removeUsage("old")};`],
      ["balance_entries_daily_insert", "insert on balance_entries", `${ADD_ENTRY};`],
      [
        "balance_entries_daily_update",
        "update on balance_entries",
        `${REMOVE_ENTRY}; ${ADD_ENTRY};`,
      ],
      ["balance_entries_daily_delete", "delete on balance_entries", `${REMOVE_ENTRY};`],
    ];
    for (const [name, event, body] of triggers) {
      await sql.raw(`create trigger ${name} after ${event} begin ${body} end`).execute(database);
    }
  },
};

/** The usage console's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const USAGE_MIGRATIONS: SchemaMigrations = {
  "0008_usage_daily_totals": usageDailyTotalsMigration,
};
