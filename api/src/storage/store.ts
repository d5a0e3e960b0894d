import type { Kysely } from "kysely";
import type { ChangeFeed } from "./change-feed.js";
import type { Deadline } from "./deadline.js";
import type { Ledger } from "./ledger.js";
import type { SchemaMigrations } from "./migrations.js";
import type { DatabaseSchema } from "./schema.js";
import type { StoreHealth } from "./store-health.js";

/** The store's query builder, for everything off the request path. */
export type Database = Kysely<DatabaseSchema>;

/** The SQL dialects the store runs on (docs/ARCHITECTURE.md "Storage"). */
export type DatabaseDialect = "sqlite" | "postgres";

/**
 * The one storage layer of the service: a query
 * builder for everything, the request path's ledger operations with
 * deadlines and group commit, the change feed that keeps caches true, and
 * the health that `/readyz` reports. Opened by `openStore`
 * (storage/open-store.ts) on SQLite — in worker threads — or PostgreSQL.
 */
export interface Store {
  readonly dialect: DatabaseDialect;
  /** Kysely over the store (SQLite: statements run in the worker threads). */
  readonly database: Database;
  /** Admissions, settlements, releases and usage rows of the request path. */
  readonly ledger: Ledger;
  /** Invalidation of in-process caches. */
  readonly changes: ChangeFeed;
  /** Failing or well, for `/readyz`. */
  readonly health: StoreHealth;
  /** Where the store is, safe to log: the SQLite file's path or the URL without its password. */
  readonly location: string;
  /** Milliseconds a storage call waits by default before it fails with 503. */
  readonly timeoutMs: number;
  /**
   * Statements this store has had the database execute since it opened, a
   * running total (`persona_storage_statements_total`).
   * PostgreSQL: every statement sent on the store's pools (kysely's, `BEGIN`
   * and `COMMIT` included, and the ledger's) and the change feed's
   * `LISTEN` session; SQLite: every statement the writer and reader workers
   * ran (prepared statements, `BEGIN`/`SAVEPOINT`/`COMMIT`, maintenance
   * pragmas excepted), as of each worker's latest answer.
   */
  statementCount(): number;
  /**
   * Applies every pending migration, with no statement deadline (an index
   * on a large table may take a while).
   *
   * @param migrations - every migration of the service (`SCHEMA_MIGRATIONS`)
   * @throws {StorageStartupError} when a newer version wrote the database
   */
  migrate(migrations: SchemaMigrations): Promise<void>;
  /**
   * Proves the store can be read and written: a schema table is read and a
   * probe row upserted, within the deadline.
   *
   * @throws {StorageUnavailableError} naming what failed
   */
  probe(instanceId: string, deadline: Deadline): Promise<void>;
  /**
   * Copies the whole database to `destination` while it serves (SQLite's
   * online backup; the file is written aside and renamed, mode 0600).
   * PostgreSQL has no such method: use `pg_dump` (docs/OPERATIONS.md).
   */
  backup?(destination: string): Promise<{ bytes: number }>;
  /** Closes connections and threads; pending calls fail with `closed`. */
  close(): Promise<void>;
}
