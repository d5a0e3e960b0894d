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
 * order admissions take theirs ({@link HOLD_ACCOUNTS_FUNCTION} since 0022,
 * `select … for update … order by id` before) and the two never deadlock.
 * Returns how many accounts were updated. The migration's own copy of the
 * name; the ledger calls it by `storage/postgres/ledger-functions.ts`.
 */
const SETTLE_ACCOUNTS_FUNCTION = "persona_settle_accounts";

/**
 * Migration `0021_postgres_settle_in_key_order` (WAL per
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
 * Admissions kept their `select … for update` of the accounts until
 * migration 0022 ({@link holdInKeyOrderMigration}). An instance not
 * upgraded yet keeps settling as before; both lock accounts in key order,
 * so the two work side by side during a rolling upgrade.
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

/**
 * The PostgreSQL function an admission batch holds its reservations with
 * (migration 0022): `persona_hold_accounts(ids text[], amounts bigint[])
 * returns table(account_id text, admitted integer)`. Element k of the two
 * arrays is one request that passed its rate limit, in batch order: the
 * account to hold on and the amount (micro-units). Per account, in key
 * order, the requests are held in batch order while the cumulative hold
 * fits the spendable balance (`balance − reserved ≥ holds before it +
 * max(its hold, 1)`), as a prefix: once one does not fit, the later ones
 * of that account are refused too. One row per account: how many of its
 * requests (the first `admitted`) are held; an account that does not
 * exist holds none.
 *
 * The spendable balance is read without a lock, and the account's
 * `reserved_micros` raised by an update that applies only if the
 * spendable balance is still what was read (`where balance − reserved =
 * read`); PostgreSQL re-checks that condition on the newest committed row
 * once a concurrent writer's lock is gone, and when it no longer holds the
 * function reads again and decides again. So the decision is made on the
 * figures the hold is added to, as it was under `select … for update`,
 * and the update locks the row itself (no lock record). An account none of
 * whose requests holds anything (all refused, or holds of 0) is read only:
 * its refusal is decided on the balance committed when it was read. The
 * migration's own copy of the name; the ledger calls it by
 * `storage/postgres/ledger-functions.ts`.
 */
const HOLD_ACCOUNTS_FUNCTION = "persona_hold_accounts";

/**
 * Migration `0022_postgres_hold_in_key_order` (WAL per request),
 * PostgreSQL only: an admission batch holds on its accounts by their
 * updates, one account at a time in key order
 * ({@link HOLD_ACCOUNTS_FUNCTION}), instead of `select … order by id for
 * update` and then one `update … from` — as settlements do since 0021, so
 * admissions and settlements take account locks in the same order and
 * neither writes a row-lock record (about 54 WAL bytes per account and
 * batch: on 100 accounts, one a request).
 *
 * The foreign key `balance_reservations.account_id → accounts(id)` (`on
 * delete cascade`) is dropped with it: its check of every hold locks the
 * account row (`for key share`), which, after the update, writes the lock
 * record the admission no longer takes, and runs one more query per hold.
 * Every hold is written by the statement that raised that account's
 * `reserved_micros` (the function returns no held request for an account
 * that does not exist); the service never deletes an account.
 *
 * An instance not upgraded yet keeps admitting with `select … for update`,
 * also in key order: the two work side by side during a rolling upgrade.
 * SQLite: nothing (one writer; no lock records).
 */
export const holdInKeyOrderMigration: Migration = {
  async up(database: Kysely<unknown>) {
    if (!(database.getExecutor().adapter instanceof PostgresAdapter)) return;
    await dropForeignKeys(database, "balance_reservations", "accounts");
    await sql
      .raw(`create or replace function ${HOLD_ACCOUNTS_FUNCTION}(ids text[], amounts bigint[])
      returns table(account_id text, admitted integer) language plpgsql as $$
      declare
        first_request integer := 1;
        last_request integer;
        total integer := coalesce(array_length(ids, 1), 0);
        spendable bigint;
        held bigint;
      begin
        -- Key order, and batch order within an account.
        select array_agg(t.id order by t.id, t.ord), array_agg(t.amount order by t.id, t.ord)
        into ids, amounts from unnest(ids, amounts) with ordinality as t(id, amount, ord);
        while first_request <= total loop
          last_request := first_request;
          while last_request < total and ids[last_request + 1] = ids[first_request] loop
            last_request := last_request + 1;
          end loop;
          loop
            admitted := 0;
            held := 0;
            select a.balance_micros - a.reserved_micros into spendable from accounts a where a.id = ids[first_request];
            exit when spendable is null;
            while first_request + admitted <= last_request and spendable - held >= greatest(amounts[first_request + admitted], 1) loop
              held := held + amounts[first_request + admitted];
              admitted := admitted + 1;
            end loop;
            exit when held = 0;
            update accounts a set reserved_micros = a.reserved_micros + held
            where a.id = ids[first_request] and a.balance_micros - a.reserved_micros = spendable;
            exit when found;
          end loop;
          account_id := ids[first_request];
          return next;
          first_request := last_request + 1;
        end loop;
      end $$`)
      .execute(database);
  },
};

/** The migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const KEY_ORDER_MIGRATIONS: SchemaMigrations = {
  "0021_postgres_settle_in_key_order": settleInKeyOrderMigration,
  "0022_postgres_hold_in_key_order": holdInKeyOrderMigration,
};
