import {
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from "kysely";
import { StorageStartupError } from "./startup-error.js";

/**
 * Migrations by name (`0002_billing_limits_payments`), applied in the
 * order of their names. Each feature keeps its own in its folder, named by
 * its number; `api/src/schema-migrations.ts` gathers them. One set serves
 * every dialect (portable column types; dialect-specific parts, such as
 * triggers, branch inside).
 */
export type SchemaMigrations = Readonly<Record<string, Migration>>;

/**
 * PostgreSQL: drops every foreign key of table `from` that refers to table
 * `to`, whatever PostgreSQL named it (migrations 0013 and 0021). On a
 * partitioned table the partitions' copies go with it.
 */
export async function dropForeignKeys(
  database: Kysely<unknown>,
  from: string,
  to: string,
): Promise<void> {
  const foreignKeys = await sql<{ name: string }>`select conname as name from pg_constraint
    where contype = 'f' and conrelid = ${from}::regclass and confrelid = ${to}::regclass`.execute(
    database,
  );
  for (const { name } of foreignKeys.rows) {
    await sql`alter table ${sql.table(from)} drop constraint ${sql.id(name)}`.execute(database);
  }
}

/** Names of migrations the database ran that this code does not know (a newer version wrote it). */
async function unknownMigrations(
  database: Kysely<unknown>,
  migrations: SchemaMigrations,
): Promise<string[]> {
  // A new database has no migration table yet. Asked of the catalogue (as kysely's
  // migrator does) rather than by a failing query: on PostgreSQL that failure is
  // "no schema", which the store's health would log as an error on every first start.
  const tables = await database.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === DEFAULT_MIGRATION_TABLE)) return [];
  const query = sql<{ name: string }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)}`;
  const { rows } = await query.execute(database);
  return rows.map((row) => row.name).filter((name) => !(name in migrations));
}

/**
 * Applies every pending migration of `migrations`. Safe when several instances start at
 * once: kysely takes a migration lock (an advisory lock on PostgreSQL).
 *
 * @throws {StorageStartupError} when the database was written by a newer
 *   version (it ran a migration this code does not know)
 * @throws the migration's error when one fails (the failed step is rolled back)
 */
export async function migrateToLatest(
  database: Kysely<unknown>,
  migrations: SchemaMigrations,
): Promise<void> {
  const unknown = await unknownMigrations(database, migrations);
  if (unknown.length > 0) {
    throw new StorageStartupError(
      `the database was written by a newer version (unknown migration ${unknown.join(", ")}): run that version, or restore a backup made by this one`,
    );
  }
  const provider: MigrationProvider = { getMigrations: async () => ({ ...migrations }) };
  const migrator = new Migrator({ db: database, provider });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}
