import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { billingMigration } from "../billing/billing-migration.js";
import { modelRoutesMigration } from "../personas/model-routes-migration.js";
import { keyFlashMigration } from "../playground/key-flash-migration.js";
import { playgroundMigration } from "../playground/playground-migration.js";
import { rateLimitMigration } from "../rate-limits/rate-limit-migration.js";
import { usageDailyTotalsMigration } from "../usage/usage-migration.js";
import { coreMigration } from "./core-migration.js";
import { StorageStartupError } from "./startup-error.js";
import { StorageUnavailableError } from "./storage-error.js";
import { storageMigration } from "./storage-migration.js";

/**
 * The migrations, in order: each feature keeps its own in its folder and
 * is registered here with one line. One set serves every dialect (portable
 * column types; dialect-specific parts, such as triggers, branch inside).
 */
const MIGRATIONS: Record<string, Migration> = {
  "0001_accounts_personas_keys": coreMigration,
  "0002_billing_limits_payments": billingMigration,
  "0003_playground": playgroundMigration,
  "0004_rate_limit_buckets": rateLimitMigration,
  "0005_storage_changes": storageMigration,
  "0006_model_routes": modelRoutesMigration,
  "0007_playground_key_flashes": keyFlashMigration,
  "0008_usage_daily_totals": usageDailyTotalsMigration,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Names of migrations the database ran that this code does not know (a newer version wrote it). */
async function unknownMigrations(database: Kysely<unknown>): Promise<string[]> {
  let rows: Array<{ name: string }>;
  try {
    rows = (await sql<{ name: string }>`select name from kysely_migration`.execute(database)).rows;
  } catch (error) {
    // A new database has no migration table yet.
    if (error instanceof StorageUnavailableError && error.kind === "no_schema") return [];
    if (/no such table|does not exist/iu.test(String(error))) return [];
    throw error;
  }
  return rows.map((row) => row.name).filter((name) => !(name in MIGRATIONS));
}

/**
 * Applies every pending migration. Safe when several instances start at
 * once: kysely takes a migration lock (an advisory lock on PostgreSQL).
 *
 * @throws {StorageStartupError} when the database was written by a newer
 *   version (it ran a migration this code does not know)
 * @throws the migration's error when one fails (the failed step is rolled back)
 */
export async function migrateToLatest(database: Kysely<unknown>): Promise<void> {
  const unknown = await unknownMigrations(database);
  if (unknown.length > 0) {
    throw new StorageStartupError(
      `the database was written by a newer version (unknown migration ${unknown.join(", ")}): run that version, or restore a backup made by this one`,
    );
  }
  const migrator = new Migrator({ db: database, provider });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}
