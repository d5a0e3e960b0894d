import { type Kysely, type Migration, PostgresAdapter, sql } from "kysely";
import type { SchemaMigrations } from "../storage/migrations.js";
import { ADD_ENTRY, addUsage, REMOVE_ENTRY, removeUsage } from "./usage-migration.js";

/**
 * The ledger kind of the one entry per account and month that stands for
 * removed entries, as this migration's triggers name it (and 0014's, 0017's
 * after it). The migration's own copy; live code reads
 * `CARRIED_FORWARD_KIND` from `usage/carried-forward.ts`.
 */
export const CARRIED_FORWARD_KIND = "carried_forward";

/** True when a deleted row is older than the retention cutoff (retention removed it). */
export const RETAINED_AWAY =
  "old.created_at < (select coalesce(max(cutoff), '') from retention_cutoff)";

/**
 * Migration `0012_usage_retention`:
 *
 * - `retention_cutoff`: one row, the newest cutoff a retention run used
 *   (ISO 8601 UTC, a UTC midnight). Only ever moves forward.
 * - The daily-totals triggers of migration 0008 no longer take a deleted
 *   usage row or ledger entry out of its day's totals when it is older than
 *   that cutoff (retention removed it: the totals are kept for ever), and
 *   ledger entries of kind `carried_forward` (which stand for entries
 *   already counted) never touch `balance_daily_totals`.
 * - Indexes retention reads by: `usage_records(created_at)`,
 *   `balance_entries(created_at)`, `balance_entries(usage_id)` (the last
 *   also serves the foreign-key check of a deleted usage row).
 */
export const usageRetentionMigration: Migration = {
  async up(database: Kysely<unknown>) {
    await database.schema
      .createTable("retention_cutoff")
      .addColumn("id", "integer", (column) => column.primaryKey())
      .addColumn("cutoff", "text", (column) => column.notNull())
      .execute();
    await database.schema
      .createIndex("usage_records_created_at")
      .on("usage_records")
      .column("created_at")
      .execute();
    await database.schema
      .createIndex("balance_entries_created_at")
      .on("balance_entries")
      .column("created_at")
      .execute();
    await database.schema
      .createIndex("balance_entries_usage_id")
      .on("balance_entries")
      .column("usage_id")
      .execute();

    if (database.getExecutor().adapter instanceof PostgresAdapter) {
      await sql
        .raw(`create or replace function persona_usage_daily_totals() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' and ${RETAINED_AWAY} then return null; end if;
          if tg_op in ('UPDATE', 'DELETE') then ${removeUsage("old")}; end if;
          if tg_op in ('INSERT', 'UPDATE') then ${addUsage("new")}; end if;
          return null;
        end $$`)
        .execute(database);
      await sql
        .raw(`create or replace function persona_balance_daily_totals() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' and ${RETAINED_AWAY} then return null; end if;
          if tg_op in ('UPDATE', 'DELETE') and old.kind <> '${CARRIED_FORWARD_KIND}' then ${REMOVE_ENTRY}; end if;
          if tg_op in ('INSERT', 'UPDATE') and new.kind <> '${CARRIED_FORWARD_KIND}' then ${ADD_ENTRY}; end if;
          return null;
        end $$`)
        .execute(database);
      return;
    }
    const notCarried = `new.kind <> '${CARRIED_FORWARD_KIND}'`;
    const triggers: Array<[string, string, string, string]> = [
      [
        "usage_records_daily_delete",
        "delete on usage_records",
        `not (${RETAINED_AWAY})`,
        `${removeUsage("old")};`,
      ],
      ["balance_entries_daily_insert", "insert on balance_entries", notCarried, `${ADD_ENTRY};`],
      [
        "balance_entries_daily_update",
        "update on balance_entries",
        notCarried,
        `${REMOVE_ENTRY}; ${ADD_ENTRY};`,
      ],
      [
        "balance_entries_daily_delete",
        "delete on balance_entries",
        `not (${RETAINED_AWAY}) and old.kind <> '${CARRIED_FORWARD_KIND}'`,
        `${REMOVE_ENTRY};`,
      ],
    ];
    for (const [name, event, condition, body] of triggers) {
      await sql.raw(`drop trigger ${name}`).execute(database);
      await sql
        .raw(`create trigger ${name} after ${event} when ${condition} begin ${body} end`)
        .execute(database);
    }
  },
};

/** Retention's migrations by name, gathered in `api/src/schema-migrations.ts`. */
export const RETENTION_MIGRATIONS: SchemaMigrations = {
  "0012_usage_retention": usageRetentionMigration,
};
