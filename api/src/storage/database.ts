import fs from "node:fs";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type SqliteDialectConfig } from "kysely";
import pg from "pg";
import { migrationProvider } from "./migrations.js";
import type { DatabaseSchema } from "./schema.js";

/** The store's query builder. */
export type Database = Kysely<DatabaseSchema>;

/** The SQL dialects the store runs on (DESIGN.md "Storage"). */
export type DatabaseDialect = "sqlite" | "postgres";

/** PostgreSQL type ID of `bigint` (int8). */
const INT8_TYPE_ID = 20;

/**
 * Tells the dialect of a database URL: `postgres://` or `postgresql://` is
 * PostgreSQL; anything else is the path of a SQLite file (or `:memory:`).
 */
export function databaseDialectOf(url: string): DatabaseDialect {
  return /^postgres(?:ql)?:\/\//iu.test(url) ? "postgres" : "sqlite";
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** Most connections a PostgreSQL pool opens (default 10); ignored for SQLite. */
  poolSize?: number;
}

function openSqlite(file: string): Database {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma("journal_mode = WAL");
  // In WAL mode NORMAL syncs at checkpoints rather than at every commit: a
  // committed transaction survives any crash of the process (the ledger of
  // every answered request included); only a power loss or an OS crash can
  // lose the last commits, never consistency. Without it every commit is an
  // fsync that blocks the event loop (better-sqlite3 is synchronous).
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  return new Kysely<DatabaseSchema>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
  });
}

/** Prepared statements kept per SQLite connection (the service's queries are a few dozen). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Hands kysely a connection that reuses prepared statements by SQL text:
 * kysely prepares every query anew, and preparing costs as much as running
 * the short statements of the request path. Reuse is safe because kysely
 * runs one query at a time per connection (its connection mutex), and
 * SQLite re-prepares a statement by itself after a schema change.
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDialectConfig["database"] {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(source: string) {
      let statement = cache.get(source);
      if (statement === undefined) {
        statement = sqlite.prepare(source);
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
        cache.set(source, statement);
      }
      return statement;
    },
  };
}

function openPostgres(url: string, poolSize: number): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Money and counters are bigint columns; micro-unit amounts stay far
    // below 2^53, so they are read as plain numbers like SQLite's integers.
    types: {
      getTypeParser: ((typeId: number, format?: "text" | "binary") =>
        typeId === INT8_TYPE_ID && format !== "binary"
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(typeId, format ?? "text")) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection (database restart) must not crash
  // the process; the pool replaces it on the next checkout.
  pool.on("error", () => undefined);
  return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * Opens the store named by a database URL (`PERSONA_DATABASE_URL`):
 * PostgreSQL through a `pg` pool for `postgres://…` and `postgresql://…`,
 * otherwise a SQLite file (created with its folder when missing; WAL with
 * `synchronous = NORMAL`, foreign keys, a 5 s busy timeout). Every query of the service is written
 * to run unchanged on both.
 *
 * @param url - a PostgreSQL URL, a SQLite file path, or `:memory:`
 * @example
 * const database = openDatabase("postgres://postgres@127.0.0.1:5432/persona");
 * await migrateToLatest(database);
 */
export function openDatabase(url: string, options: OpenDatabaseOptions = {}): Database {
  return databaseDialectOf(url) === "postgres"
    ? openPostgres(url, options.poolSize ?? 10)
    : openSqlite(url);
}

/**
 * Applies every pending migration. Safe when several instances start at
 * once: kysely takes a migration lock (an advisory lock on PostgreSQL).
 *
 * @throws the migration's error when one fails (the failed step is rolled back)
 */
export async function migrateToLatest(database: Database): Promise<void> {
  const migrator = new Migrator({ db: database, provider: migrationProvider });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}
