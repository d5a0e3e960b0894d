import type { Logger } from "../logging/logger.js";
import {
  type LedgerObserver,
  observeLedger,
  type SettleInput,
  type SettleOutcome,
} from "./ledger.js";
import { openPostgresStore } from "./postgres/postgres-store.js";
import { openSqliteStore, type SqliteStoreOptions } from "./sqlite/sqlite-store.js";
import type { DatabaseDialect, Store } from "./store.js";

export type { Database, DatabaseDialect, Store } from "./store.js";

/**
 * Tells the dialect of a database URL: `postgres://` or `postgresql://` is
 * PostgreSQL; anything else is the path of a SQLite file.
 */
export function databaseDialectOf(url: string): DatabaseDialect {
  return /^postgres(?:ql)?:\/\//iu.test(url) ? "postgres" : "sqlite";
}

/** Options of {@link openStore}; durations in milliseconds (docs/OPERATIONS.md "Timeouts"). */
export interface StoreOptions {
  /** A PostgreSQL URL or the absolute path of the SQLite file. */
  url: string;
  logger: Logger;
  /** How long one storage call may wait (a statement, a lock, a free connection): then 503. */
  timeoutMs: number;
  /** PostgreSQL: opening a connection. */
  connectTimeoutMs: number;
  /** PostgreSQL: most connections of the pool. */
  poolSize: number;
  /** SQLite: what the writer worker does about locks, the log and the file. */
  sqlite: Omit<SqliteStoreOptions, "file" | "logger" | "timeoutMs" | "onLateSettlement">;
  /** Called when a settlement commits after its caller gave up on it. */
  onLateSettlement?: (input: SettleInput, outcome: SettleOutcome) => void;
  /** Told how long each ledger call took (`persona_storage_write_duration_seconds`). */
  onLedgerCall?: LedgerObserver;
}

/**
 * Opens the store named by a database URL (`PERSONA_DATABASE_URL`):
 * PostgreSQL for `postgres://…` and `postgresql://…`, else the SQLite file
 * in worker threads. Migrations are applied by `store.migrate(SCHEMA_MIGRATIONS)`.
 *
 * @throws {StorageStartupError} for a SQLite file that cannot be served (empty, damaged, lost)
 * @example
 * const store = await openStore({ url: "postgres://postgres@127.0.0.1:5432/persona", … });
 * await store.migrate(SCHEMA_MIGRATIONS);
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  const store = await openDialectStore(options);
  const observe = options.onLedgerCall;
  return observe === undefined ? store : { ...store, ledger: observeLedger(store.ledger, observe) };
}

async function openDialectStore(options: StoreOptions): Promise<Store> {
  if (databaseDialectOf(options.url) === "postgres") {
    return openPostgresStore({
      url: options.url,
      logger: options.logger,
      poolSize: options.poolSize,
      timeouts: { connectMs: options.connectTimeoutMs, statementMs: options.timeoutMs },
    });
  }
  return openSqliteStore({
    file: options.url,
    logger: options.logger,
    timeoutMs: options.timeoutMs,
    ...options.sqlite,
    ...(options.onLateSettlement === undefined
      ? {}
      : { onLateSettlement: options.onLateSettlement }),
  });
}
