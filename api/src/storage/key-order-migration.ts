import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import { dropForeignKeys, type SchemaMigrations } from "./migrations.js";
import {
  replaceTriggerFunction,
  USAGE_SUMS,
  usageTriggerBodies,
} from "./request-path-migration.js";

/**
 * The PostgreSQL function a settlement batch updates its accounts with
 * (migration 0021): `persona_settle_accounts(ids text[], charges bigint[],
 * released bigint[]) returns integer`. Element k of the three arrays is
 * one account: its balance goes down by `charges[k]` and its
 * `reserved_micros` by `released[k]` (micro-units). The accounts are
 * updated one at a time in key order, so the row locks are taken in the
 * order admissions take theirs (`select … for update … order by id`) and
 * the two never deadlock. Returns how many accounts were updated.
 */
export const SETTLE_ACCOUNTS_FUNCTION = "persona_settle_accounts";

/**
 * Migration `0021_postgres_settle_in_key_order` (issue 27, WAL per
 * request), PostgreSQL only: the rows a settlement batch changes are
 * locked by their updates, in key order, instead of by a lock taken before
 * the update. PostgreSQL writes a WAL record for every row lock (`select …
 * for update`, `insert … on conflict do update` on a row that exists, a
 * foreign key's check of the row it refers to: about 54 bytes each)
 * besides the update's own record, which locks the row as well; the order
 * is what the separate lock was for (concurrent batches queue instead of
 * deadlocking). On 100 accounts, where each request of a batch has its
 * own account and totals row, that was about 110 of a request's WAL bytes
 * (`npm run bench:db-cost`).
 *
 * - {@link SETTLE_ACCOUNTS_FUNCTION}: a settlement batch's account updates,
 *   one account at a time in key order (was: `select … order by id for
 *   update`, then one `update … from`).
 * - The `usage_records` insert and update triggers (0014, 0019) update
 *   each totals row by key, in key order, and insert only the keys that
 *   have no row yet (was: `insert … on conflict do update`). Same sums.
 * - The foreign key `usage_records.account_id → accounts(id)` is dropped:
 *   its check of every inserted usage row locks the account row (`for key
 *   share`), which wrote the lock record the settlement no longer takes,
 *   and runs one more query per row. Every usage row is written for an
 *   account the request was authenticated for, by the statement that
 *   updates that account's balance (or refuses it); the service never
 *   deletes an account. What the key still did is refuse an account's
 *   deletion by hand while it had usage (its ledger entries,
 *   `balance_entries.account_id`, still do). SQLite keeps it.
 *
 * Admissions keep their `select … for update` of the accounts: what they
 * decide must be read under the lock (a lock record, still). An instance
 * not upgraded yet keeps settling as before; both lock accounts in key
 * order, so the two work side by side during a rolling upgrade.
 * SQLite: nothing (one writer; no lock records).
 */
export const settleInKeyOrderMigration: Migration = {
  async up(database: Kysely<unknown>) {
    if (!(database.getExecutor().adapter instanceof PostgresAdapter)) return;
    await dropForeignKeys(database, "usage_records", "accounts");
    await sql
      .raw(`create or replace function ${SETTLE_ACCOUNTS_FUNCTION}(ids text[], charges bigint[], released bigint[])
      returns integer language plpgsql as $$
      declare
        a record;
        updated integer := 0;
      begin
        for a in select * from unnest(ids, charges, released) as t(id, charge, held) order by id loop
          update accounts set balance_micros = balance_micros - a.charge,
            reserved_micros = reserved_micros - a.held
          where id = a.id;
          if found then
            updated := updated + 1;
          end if;
        end loop;
        return updated;
      end $$`)
      .execute(database);
    const bodies = usageTriggerBodies([...USAGE_SUMS, "charged_micros"], { inKeyOrder: true });
    for (const event of ["insert", "update"] as const) {
      await replaceTriggerFunction(database, `persona_usage_records_daily_${event}`, bodies[event]);
    }
  },
};

/** The migration by name, gathered in `api/src/schema-migrations.ts`. */
export const KEY_ORDER_MIGRATIONS: SchemaMigrations = {
  "0021_postgres_settle_in_key_order": settleInKeyOrderMigration,
};
