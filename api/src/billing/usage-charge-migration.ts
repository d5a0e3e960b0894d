import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";
import { NOT_RETAINED_AWAY, STATEMENT_TRIGGERS } from "../storage/request-path-migration.js";
import { RETAINED_AWAY } from "../usage/retention-migration.js";

/** The day's ledger key of a usage row (alias `r`): its account and UTC day. */
const CHARGE_KEY = "r.account_id, substr(r.created_at, 1, 10)";

/**
 * Adds signed charges (`account_id, day, amount` rows, micro-units) to the
 * daily ledger sums: one upsert in key order, days whose charges cancel out
 * (an update that left the charge as it was) skipped.
 */
function upsertCharges(rows: string): string {
  return `insert into balance_daily_totals (account_id, day, amount_micros)
    select account_id, day, sum(amount) from (${rows}) d(account_id, day, amount)
    group by account_id, day having sum(amount) <> 0
    order by account_id, day
    on conflict (account_id, day) do update set
      amount_micros = balance_daily_totals.amount_micros + excluded.amount_micros`;
}

/** The charges of `rows` (a transition table, alias `r`) as ledger amounts (a charge takes from the balance). */
function chargesOf(rows: "new_rows" | "old_rows", sign: 1 | -1): string {
  return `select ${CHARGE_KEY}, ${-sign} * r.charged_micros::bigint from ${rows} r where r.charged_micros <> 0`;
}

/** PostgreSQL: the balance part of each `usage_records` statement trigger, by event. */
const CHARGE_BODIES = {
  insert: upsertCharges(chargesOf("new_rows", 1)),
  update: upsertCharges(`${chargesOf("new_rows", 1)} union all ${chargesOf("old_rows", -1)}`),
  delete: `update balance_daily_totals t set amount_micros = t.amount_micros + d.amount
    from (
      select ${CHARGE_KEY}, sum(r.charged_micros) from old_rows r
      where r.charged_micros <> 0 and ${NOT_RETAINED_AWAY}
      group by 1, 2
    ) d(account_id, day, amount)
    where t.account_id = d.account_id and t.day = d.day`,
} as const;

/** SQLite: adds a row's charge to its day's ledger sum (`row` is `new`, or `old` to take it out). */
function chargeRow(row: "new" | "old"): string {
  const amount = row === "new" ? `-${row}.charged_micros` : `${row}.charged_micros`;
  return `insert into balance_daily_totals (account_id, day, amount_micros)
    values (${row}.account_id, substr(${row}.created_at, 1, 10), ${amount})
    on conflict (account_id, day) do update set
      amount_micros = balance_daily_totals.amount_micros + excluded.amount_micros`;
}

/**
 * SQLite: the three per-row triggers that count usage rows' charges, as
 * `[name, event, condition, body]` — 0017 into `balance_daily_totals`,
 * 0019 into `usage_daily_totals`. `count(row)` adds a row's charge (`new`)
 * or takes it out (`old`); `moved` is when an update moves a charge (its
 * amount or its totals key changed). A delete by retention (older than the
 * cutoff) leaves the totals as they are.
 */
export function sqliteChargeTriggers(
  count: (row: "new" | "old") => string,
  moved: string,
): Array<[name: string, event: string, condition: string, body: string]> {
  return [
    [
      "usage_records_charge_insert",
      "insert on usage_records",
      "new.charged_micros <> 0",
      `${count("new")};`,
    ],
    [
      "usage_records_charge_update",
      "update on usage_records",
      moved,
      `${count("old")}; ${count("new")};`,
    ],
    [
      "usage_records_charge_delete",
      "delete on usage_records",
      `old.charged_micros <> 0 and not (${RETAINED_AWAY})`,
      `${count("old")};`,
    ],
  ];
}

/**
 * Migration `0017_usage_charges` (WAL per request), on both
 * dialects: a served request's charge is written on its usage row instead
 * of in a `charge` entry of its own.
 *
 * - `usage_records.charged_micros` (bigint, default 0): what the request
 *   took from the account's balance, in micro-units. Settlement and a late
 *   charge write it with `cost_micros`; a reversed settlement sets
 *   `cost_micros` to 0 and keeps it (its refund is an `adjustment` entry,
 *   as before). 0 for refusals, failures, x402 payments and every row
 *   written before this migration (their charge is a `charge` entry).
 * - The balance ledger is `balance_entries` together with the usage rows
 *   of `charged_micros > 0` (each a charge of `-charged_micros`): per
 *   account it still sums to the balance (`BalanceStore.ledgerSum`,
 *   `entries`). Entries written before stay as they are.
 * - `balance_daily_totals` counts those charges too: the usage rows'
 *   triggers add each row's charge to its day's sum (PostgreSQL: the
 *   statement triggers of 0014, one aggregated upsert; SQLite: per-row
 *   triggers), and a delete takes it out unless retention removed the row
 *   (older than `retention_cutoff`, as for every total).
 * - Retention folds the charges of the usage rows it removes into the
 *   month's `carried_forward` entry, in the same transaction as the delete
 *   or the partition's drop.
 *
 * What a request no longer writes: a ledger row and its three index
 * entries (primary key, `account_id, created_at`, `created_at`): about 500
 * WAL bytes a request on PostgreSQL (`npm run bench:db-cost`).
 */
export const usageChargeMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .alterTable("usage_records")
      .addColumn("charged_micros", "bigint", (column) => column.notNull().defaultTo(0))
      .execute();
    if (database.getExecutor().adapter instanceof PostgresAdapter) {
      for (const { table, event, body } of STATEMENT_TRIGGERS) {
        if (table !== "usage_records") continue;
        const name = `${table}_daily_${event}`;
        await sql
          .raw(`create or replace function persona_${name}() returns trigger language plpgsql as $$
          begin
            ${body};
            ${CHARGE_BODIES[event]};
            return null;
          end $$`)
          .execute(database);
        // The trigger itself (0014) stays: same function, same transition tables.
      }
      return;
    }
    const triggers = sqliteChargeTriggers(
      chargeRow,
      "new.charged_micros <> old.charged_micros or new.account_id <> old.account_id or new.created_at <> old.created_at",
    );
    for (const [name, event, condition, body] of triggers) {
      await sql
        .raw(`create trigger ${name} after ${event} when ${condition} begin ${body} end`)
        .execute(database);
    }
  },
};

/** The usage charges' migration, gathered in `api/src/schema-migrations.ts`. */
export const USAGE_CHARGE_MIGRATIONS: SchemaMigrations = {
  "0017_usage_charges": usageChargeMigration,
};
