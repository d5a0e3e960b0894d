import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { migrationProvider } from "./migrations.js";
import type { DatabaseSchema } from "./schema.js";
import { withStatementCache } from "./statement-cache.js";

/** The store's query builder. */
export type Database = Kysely<DatabaseSchema>;

/**
 * Opens the SQLite store (the embedded default): creates the folder and the
 * file when missing, turns on WAL and foreign keys.
 *
 * @param file - path of the SQLite file, or `:memory:`
 */
export function openDatabase(file: string): Database {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  return new Kysely<DatabaseSchema>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
  });
}

/**
 * Applies every pending migration.
 *
 * @throws the migration's error when one fails (the failed step is rolled back)
 */
export async function migrateToLatest(database: Database): Promise<void> {
  const migrator = new Migrator({ db: database, provider: migrationProvider });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}
