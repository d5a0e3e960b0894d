import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import { sqliteChargeTriggers } from "../billing/usage-charge-migration.js";
import type { SchemaMigrations } from "../storage/migrations.js";
import {
  replaceTriggerFunction,
  USAGE_SUMS,
  usageTriggerBodies,
} from "../storage/request-path-migration.js";

/** The daily-totals key of a usage row (`new` or `old`), in `usage_daily_totals` column order. */
function usageKey(row: "new" | "old"): string {
  return `${row}.account_id, substr(${row}.created_at, 1, 10), coalesce(${row}.persona_id, ''), ${row}.endpoint`;
}

/** SQLite: adds a row's charge (`new`), or takes it out (`old`), of its usage totals row. */
function chargeRow(row: "new" | "old"): string {
  const amount = row === "new" ? `${row}.charged_micros` : `-${row}.charged_micros`;
  return `insert into usage_daily_totals
      (account_id, day, persona_id, endpoint, requests, served, input_tokens, output_tokens, cost_micros, charged_micros)
    values (${usageKey(row)}, 0, 0, 0, 0, 0, ${amount})
    on conflict (account_id, day, persona_id, endpoint) do update set
      charged_micros = usage_daily_totals.charged_micros + excluded.charged_micros`;
}

/** The key of a usage row changed (or its charge did): its charge moves. */
const CHARGE_MOVED = [
  "new.charged_micros <> old.charged_micros",
  "new.account_id <> old.account_id",
  "new.created_at <> old.created_at",
  "coalesce(new.persona_id, '') <> coalesce(old.persona_id, '')",
  "new.endpoint <> old.endpoint",
].join(" or ");

/**
 * Migration `0019_daily_charges` (WAL per request), on both
 * dialects: the day's charges of usage rows (`charged_micros`, 0017) are
 * summed in the usage row's own daily-totals row instead of in
 * `balance_daily_totals`, so a settlement batch updates one totals row per
 * account, day, persona and endpoint where it updated two. On PostgreSQL
 * that is the second row's update, its lock record and its pruning, per
 * account and batch: 60–130 WAL bytes a request on 100 accounts, by the
 * batches' sizes (by hand and in `npm run bench:db-cost`, docs/BENCHMARKS.md).
 *
 * - `usage_daily_totals.charged_micros` (bigint, default 0): the charges of
 *   the day's usage rows written or changed since this migration, in
 *   micro-units (a charge taken out again counts negative).
 * - `balance_daily_totals` keeps the entries' sums, and the charges of
 *   usage rows written between 0017 and 0019, which stay where they were
 *   counted: nothing is moved, so an upgrade writes nothing but the column.
 * - The day's ledger sum of an account (what the `/usage` balance course
 *   walks back by) is therefore its `balance_daily_totals.amount_micros`
 *   minus the `charged_micros` of its usage totals rows of that day; both
 *   sides are kept in the same transaction as the rows they count, and a
 *   change to an older row's charge (a late charge, a delete) is counted
 *   on the usage side as a difference, so the sum stays exact.
 * - PostgreSQL: the `usage_records` statement triggers (0014, 0017) sum
 *   `charged_micros` in their one upsert of `usage_daily_totals` and no
 *   longer touch `balance_daily_totals`. SQLite: the per-row charge
 *   triggers of 0017 now add to `usage_daily_totals` (an upsert of the
 *   charge alone, so it does not matter which of a row's triggers runs
 *   first). Retention's rule is unchanged: a row older than the cutoff
 *   leaves its day's totals as they are.
 */
export const dailyChargesMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .alterTable("usage_daily_totals")
      .addColumn("charged_micros", "bigint", (column) => column.notNull().defaultTo(0))
      .execute();
    if (database.getExecutor().adapter instanceof PostgresAdapter) {
      const bodies = usageTriggerBodies([...USAGE_SUMS, "charged_micros"]);
      for (const event of ["insert", "update", "delete"] as const) {
        await replaceTriggerFunction(
          database,
          `persona_usage_records_daily_${event}`,
          bodies[event],
        );
      }
      return;
    }
    const triggers = sqliteChargeTriggers(chargeRow, CHARGE_MOVED);
    for (const [name, event, condition, body] of triggers) {
      await sql.raw(`drop trigger ${name}`).execute(database);
      await sql
        .raw(`create trigger ${name} after ${event} when ${condition} begin ${body} end`)
        .execute(database);
    }
  },
};

/** The migration by name, gathered in `api/src/schema-migrations.ts`. */
export const DAILY_CHARGES_MIGRATIONS: SchemaMigrations = {
  "0019_daily_charges": dailyChargesMigration,
};
