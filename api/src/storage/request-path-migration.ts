import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import type { SchemaMigrations } from "./migrations.js";

/**
 * The ledger kind of the carried-forward entries, as migration 0012 named
 * it (`usage/retention-migration.ts`): this migration's own copy of the
 * text it ran.
 */
const CARRIED_FORWARD_KIND = "carried_forward";

/**
 * True when a deleted row is older than the retention cutoff (retention
 * removed it), over the alias `old`, as migration 0012 wrote it: this
 * migration's own copy.
 */
const RETAINED_AWAY = "old.created_at < (select coalesce(max(cutoff), '') from retention_cutoff)";

/** The daily-total key of a usage row, over the alias `r`, in `usage_daily_totals` key order. */
const USAGE_KEY =
  "r.account_id, substr(r.created_at, 1, 10), coalesce(r.persona_id, ''), r.endpoint";

/**
 * The sums a usage row adds to its day's totals row, each as SQL over the
 * alias `r`: the five of migration 0008, and `charged_micros` since 0019.
 */
const USAGE_SUM_OF = {
  requests: "1",
  served: "(case when r.status = 200 then 1 else 0 end)",
  input_tokens: "r.input_tokens::bigint",
  output_tokens: "r.output_tokens::bigint",
  cost_micros: "r.cost_micros::bigint",
  charged_micros: "r.charged_micros::bigint",
} as const;

/** A column of `usage_daily_totals` that sums its usage rows. */
export type UsageSum = keyof typeof USAGE_SUM_OF;

/** The sums of migration 0008 (and 0014's triggers). */
export const USAGE_SUMS: readonly UsageSum[] = [
  "requests",
  "served",
  "input_tokens",
  "output_tokens",
  "cost_micros",
];

/** A usage row's contributions to `sums` (`sign` 1 adds, -1 takes out), over the alias `r`. */
function usageContributions(sums: readonly UsageSum[], sign: 1 | -1): string {
  return sums.map((column) => `${sign} * ${USAGE_SUM_OF[column]} as ${column}`).join(", ");
}

/** The key columns of `usage_daily_totals`, in key order. */
const TOTALS_KEY = ["account_id", "day", "persona_id", "endpoint"] as const;

/** The `on conflict` clause that adds a new totals row's `sums` (`excluded`) to the row there. */
function addToExisting(sums: readonly UsageSum[]): string {
  const updates = sums
    .map((column) => `${column} = usage_daily_totals.${column} + excluded.${column}`)
    .join(", ");
  return `on conflict (${TOTALS_KEY.join(", ")}) do update set ${updates}`;
}

/**
 * Adds the signed contributions of `rows` (a select of key columns
 * `account_id, day, persona_id, endpoint` and `sums`) to the daily totals:
 * one upsert, rows taken in key order so concurrent statements lock the
 * totals rows in the same order.
 */
function upsertUsage(sums: readonly UsageSum[], rows: string): string {
  const key = TOTALS_KEY.join(", ");
  const summed = sums.map((column) => `sum(${column})`).join(", ");
  return `insert into usage_daily_totals (${key}, ${sums.join(", ")})
    select ${key}, ${summed}
    from (${rows}) d(${key}, ${sums.join(", ")})
    group by ${key}
    order by ${key}
    ${addToExisting(sums)}`;
}

/**
 * {@link upsertUsage} without a row-lock record per totals row (migration
 * 0021): a PL/pgSQL block that takes the summed rows in key order and
 * updates each totals row by its key (the update locks it, in that order,
 * and writes one WAL record), inserting only a key that has no row yet
 * (`on conflict do update` when another transaction inserted it meanwhile).
 * `insert … on conflict do update` on a row that exists writes a lock
 * record (about 54 bytes) before its update.
 */
function upsertUsageInKeyOrder(sums: readonly UsageSum[], rows: string): string {
  const key = TOTALS_KEY.join(", ");
  const summed = sums.map((column) => `sum(${column}) as ${column}`).join(", ");
  return `declare d record;
  begin
    for d in select ${key}, ${summed}
      from (${rows}) s(${key}, ${sums.join(", ")})
      group by ${key}
      order by ${key}
    loop
      update usage_daily_totals t set ${sums.map((column) => `${column} = t.${column} + d.${column}`).join(", ")}
      where ${TOTALS_KEY.map((column) => `t.${column} = d.${column}`).join(" and ")};
      if not found then
        insert into usage_daily_totals (${key}, ${sums.join(", ")})
        values (${[...TOTALS_KEY, ...sums].map((column) => `d.${column}`).join(", ")})
        ${addToExisting(sums)};
      end if;
    end loop;
  end`;
}

/** A deleted row (alias `r`) counts unless retention removed it (0012: totals are kept for ever). */
export const NOT_RETAINED_AWAY = `not (${RETAINED_AWAY.replaceAll("old.", "r.")})`;

/** Takes the deleted usage rows (`old_rows`) retention did not remove out of their days' totals. */
function removeDeletedUsage(sums: readonly UsageSum[]): string {
  return `update usage_daily_totals t set
    ${sums.map((column) => `${column} = t.${column} - d.${column}`).join(", ")}
  from (
    select ${USAGE_KEY}, ${sums.map((column) => `sum(${USAGE_SUM_OF[column]})`).join(", ")}
    from old_rows r where ${NOT_RETAINED_AWAY}
    group by 1, 2, 3, 4
  ) d(account_id, day, persona_id, endpoint, ${sums.join(", ")})
  where t.account_id = d.account_id and t.day = d.day and t.persona_id = d.persona_id and t.endpoint = d.endpoint`;
}

/**
 * PostgreSQL: the bodies of the `usage_records` statement triggers, by
 * event, keeping `sums` of `usage_daily_totals` (0014: the five of 0008;
 * 0019: with `charged_micros`; 0021: `inKeyOrder`, insert and update as
 * {@link upsertUsageInKeyOrder}). Each body is PL/pgSQL statements for
 * the function's `begin … end`.
 */
export function usageTriggerBodies(
  sums: readonly UsageSum[],
  options: { inKeyOrder?: boolean } = {},
): Record<"insert" | "update" | "delete", string> {
  const upsert = options.inKeyOrder === true ? upsertUsageInKeyOrder : upsertUsage;
  return {
    insert: upsert(sums, `select ${USAGE_KEY}, ${usageContributions(sums, 1)} from new_rows r`),
    update: upsert(
      sums,
      `select ${USAGE_KEY}, ${usageContributions(sums, 1)} from new_rows r
       union all select ${USAGE_KEY}, ${usageContributions(sums, -1)} from old_rows r`,
    ),
    delete: removeDeletedUsage(sums),
  };
}

const USAGE_BODIES_0014 = usageTriggerBodies(USAGE_SUMS);

/** The day's ledger sum of each entry of `rows` (alias `r`) that is not carried forward, signed. */
function entryContributions(rows: string, sign: 1 | -1): string {
  return `select r.account_id, substr(r.created_at, 1, 10), ${sign} * r.amount_micros::bigint
    from ${rows} r where r.kind <> '${CARRIED_FORWARD_KIND}'`;
}

/** Adds signed ledger contributions (`account_id, day, amount`) to the daily sums: one upsert in key order. */
function upsertEntries(rows: string): string {
  return `insert into balance_daily_totals (account_id, day, amount_micros)
    select account_id, day, sum(amount) from (${rows}) d(account_id, day, amount)
    group by account_id, day
    order by account_id, day
    on conflict (account_id, day) do update set
      amount_micros = balance_daily_totals.amount_micros + excluded.amount_micros`;
}

const REMOVE_DELETED_ENTRIES = `update balance_daily_totals t set amount_micros = t.amount_micros - d.amount
  from (
    select r.account_id, substr(r.created_at, 1, 10), sum(r.amount_micros)
    from old_rows r
    where r.kind <> '${CARRIED_FORWARD_KIND}' and ${NOT_RETAINED_AWAY}
    group by 1, 2
  ) d(account_id, day, amount)
  where t.account_id = d.account_id and t.day = d.day`;

/** PostgreSQL: one function and one statement-level trigger per table and event. */
export const STATEMENT_TRIGGERS: Array<{
  table: "usage_records" | "balance_entries";
  event: "insert" | "update" | "delete";
  body: string;
}> = [
  { table: "usage_records", event: "insert", body: USAGE_BODIES_0014.insert },
  { table: "usage_records", event: "update", body: USAGE_BODIES_0014.update },
  { table: "usage_records", event: "delete", body: USAGE_BODIES_0014.delete },
  {
    table: "balance_entries",
    event: "insert",
    body: upsertEntries(entryContributions("new_rows", 1)),
  },
  {
    table: "balance_entries",
    event: "update",
    body: upsertEntries(
      `${entryContributions("new_rows", 1)} union all ${entryContributions("old_rows", -1)}`,
    ),
  },
  { table: "balance_entries", event: "delete", body: REMOVE_DELETED_ENTRIES },
];

/**
 * PostgreSQL: creates or replaces the trigger function `name`, a PL/pgSQL
 * function that runs `body` (statements, or a block) and returns null, as
 * the statement-level triggers of 0014 and the migrations that change
 * them (0019, 0021) do.
 */
export async function replaceTriggerFunction(
  database: Kysely<unknown>,
  name: string,
  body: string,
): Promise<void> {
  await sql
    .raw(`create or replace function ${name}() returns trigger language plpgsql as $$
    begin
      ${body};
      return null;
    end $$`)
    .execute(database);
}

/** The transition tables an event's trigger reads. */
const TRANSITIONS = {
  insert: "new table as new_rows",
  update: "old table as old_rows new table as new_rows",
  delete: "old table as old_rows",
} as const;

/**
 * Migration `0014_postgres_request_path`, PostgreSQL only (on SQLite nothing changes):
 *
 * - `balance_reservations` loses its indexes on `instance_id` and
 *   `expires_at`: the table holds only the holds of requests in flight
 *   (each row lives for one model call), which the sweeper reads every
 *   few seconds by a scan as cheap as an index lookup, while each request
 *   paid two index insertions for them.
 * - The daily totals of migration 0008 are kept per statement instead of
 *   per row. The row-level triggers
 * `usage_records_daily_totals` and `balance_entries_daily_totals` (0008,
 * amended by 0012) are dropped; in their place one statement-level trigger
 * per table and event (`usage_records_daily_insert`, `…_update`,
 * `…_delete`, the same for `balance_entries`) reads the statement's
 * transition tables and writes each affected totals row once, in one
 * aggregated statement — a batch of 50 settlements of one account updates
 * that account's daily-total row once instead of 50 times (one hot row
 * lock, one tuple version, one WAL record).
 *
 * The sums are the same as before, row for row: an insert adds, an update
 * takes the old row out and adds the new one, a delete takes the row out
 * unless retention removed it (older than `retention_cutoff`, 0012: totals
 * are kept for ever), and `carried_forward` ledger entries never count.
 * Statement-level triggers with transition tables work on a plain table and
 * on a partitioned parent (PostgreSQL 11 and later), so this holds whether
 * `usage_records` is partitioned or not. SQLite keeps its per-row
 * triggers (they run in the writer's transaction already).
 */
export const postgresRequestPathMigration: Migration = {
  async up(database: Kysely<unknown>) {
    if (!(database.getExecutor().adapter instanceof PostgresAdapter)) return;
    await database.schema.dropIndex("balance_reservations_instance_id").ifExists().execute();
    await database.schema.dropIndex("balance_reservations_expires_at").ifExists().execute();
    await sql
      .raw("drop trigger if exists usage_records_daily_totals on usage_records")
      .execute(database);
    await sql
      .raw("drop trigger if exists balance_entries_daily_totals on balance_entries")
      .execute(database);
    for (const { table, event, body } of STATEMENT_TRIGGERS) {
      const name = `${table}_daily_${event}`;
      await replaceTriggerFunction(database, `persona_${name}`, body);
      await sql
        .raw(
          `create trigger ${name} after ${event} on ${table} referencing ${TRANSITIONS[event]} for each statement execute function persona_${name}()`,
        )
        .execute(database);
    }
  },
};

/**
 * Migration `0015_postgres_entry_usage_index` (WAL per request),
 * PostgreSQL only: drops `balance_entries_usage_id` (0012), an index on
 * every ledger entry's `usage_id` that each settlement's `charge` entry
 * paid one index insertion for (about 100 WAL bytes a request, measured
 * by `npm run bench:db-cost`). Its only readers were usage retention's
 * "does an entry still refer to this usage row" checks, which now ask
 * for non-`charge` entries and so use the partial index
 * `balance_entries_usage_refs` (0013) that holds exactly those: a charge
 * entry never outlives its usage row there, because it has the row's
 * `created_at` and retention rolls the ledger up to the cutoff before it
 * removes usage rows. SQLite keeps the index: its foreign key from
 * `balance_entries.usage_id` (dropped on PostgreSQL by 0013) looks
 * entries up by it whenever a usage row is deleted.
 */
export const postgresEntryUsageIndexMigration: Migration = {
  async up(database: Kysely<unknown>) {
    if (!(database.getExecutor().adapter instanceof PostgresAdapter)) return;
    await database.schema.dropIndex("balance_entries_usage_id").ifExists().execute();
  },
};

/**
 * The one-row table whose row PostgreSQL's crash recovery removes together
 * with the holds (both unlogged, migration 0016): when it is empty, the
 * holds of `balance_reservations` were lost and the accounts' reserved
 * sums must be made to match again (`BalanceStore.reconcileLostHolds`).
 * The migration's own copy of the name; live code reads it from
 * `billing/billing-tables.ts`.
 */
const HOLDS_MARKER_TABLE = "balance_reservations_marker";

/**
 * Migration `0016_postgres_unlogged_holds` (WAL per request),
 * PostgreSQL only: `balance_reservations` becomes an unlogged table, so a
 * request's hold (an insert at admission, a delete at settlement: about
 * 400 WAL bytes a request, measured by `npm run bench:db-cost`) is no
 * longer written to the WAL. A hold is not a record: it lives for one
 * model call, and what it is for — never holding more than the balance —
 * is decided under the account's row lock with the account's
 * `reserved_micros`, which stays logged. What changes is what a server
 * crash (or a promoted replica, or a restored physical backup) leaves:
 * the table comes back empty, while `reserved_micros` still counts the
 * lost holds. The table `balance_reservations_marker` (unlogged too, one
 * row) comes back empty with it; every instance's sweeper checks it and
 * then sets each account's `reserved_micros` to the sum of the holds that
 * are there (SCALING.md "What a crash leaves"). Until then the lost holds
 * only lower what an account may spend (refusals, never overspend); a
 * request whose hold was lost is settled as one whose hold the sweeper
 * released: charged only while the balance still covers it.
 */
export const postgresUnloggedHoldsMigration: Migration = {
  async up(database: Kysely<unknown>) {
    if (!(database.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`alter table balance_reservations set unlogged`.execute(database);
    await sql
      .raw(`create unlogged table ${HOLDS_MARKER_TABLE} (id integer primary key)`)
      .execute(database);
    await sql.raw(`insert into ${HOLDS_MARKER_TABLE} (id) values (1)`).execute(database);
  },
};

/** The PostgreSQL request path's migrations, gathered in `api/src/schema-migrations.ts`. */
export const REQUEST_PATH_MIGRATIONS: SchemaMigrations = {
  "0014_postgres_request_path": postgresRequestPathMigration,
  "0015_postgres_entry_usage_index": postgresEntryUsageIndexMigration,
  "0016_postgres_unlogged_holds": postgresUnloggedHoldsMigration,
};
