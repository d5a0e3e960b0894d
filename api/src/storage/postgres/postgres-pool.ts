import pg from "pg";
import type { ChangeFeed } from "../change-feed.js";
import type { Deadline } from "../deadline.js";
import type { StatementCounter } from "../statement-counter.js";
import { postgresFailureKind, StorageUnavailableError } from "../storage-error.js";
import type { StoreHealth } from "../store-health.js";

/** PostgreSQL type ID of `bigint` (int8). */
const INT8_TYPE_ID = 20;

/** Timeouts of the pool, in milliseconds (docs/OPERATIONS.md "Timeouts"). */
export interface PostgresTimeouts {
  /** Opening a connection, and waiting for a free one in the pool. */
  connectMs: number;
  /** A statement: the server cancels it (`statement_timeout`), the client gives up 500 ms later. */
  statementMs: number;
}

/** A masked form of a PostgreSQL URL for logs: no password. */
export function maskedPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "*****";
    return parsed.toString();
  } catch {
    return "postgres://(unparseable URL)";
  }
}

/** Turns a `pg` error into a {@link StorageUnavailableError} when it is about the server, not the query. */
export function classifyPostgresError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError) return error;
  const kind = postgresFailureKind(error);
  if (kind === undefined) return error;
  return new StorageUnavailableError(kind, error instanceof Error ? error.message : String(error), {
    cause: error,
  });
}

/**
 * A `pg` pool that never takes the process down and never waits without
 * a deadline: connect and acquire timeouts, a server-side
 * `statement_timeout` and a client-side read timeout, TCP keep-alive, and
 * an `error` listener on every client for as long as it lives — pg-pool
 * removes its own idle listener while a client is checked out, so a
 * connection cut then (`pg_terminate_backend`, a restart) would otherwise
 * be an unhandled `error` event.
 *
 * @param options.relaxedCommits - the pool's sessions commit without waiting
 *   for the WAL flush (`synchronous_commit = off`): only for writes whose loss
 *   in a server crash loses no money and no record
 * @param options.statements - counts every statement {@link queryWithin} and
 *   {@link kyselyPool} send on this pool
 */
export function createPostgresPool(
  url: string,
  poolSize: number,
  timeouts: PostgresTimeouts,
  health: StoreHealth,
  options: { relaxedCommits?: boolean; statements?: StatementCounter } = {},
): pg.Pool {
  const pool = new pg.Pool({
    // Commits that need not wait for the WAL flush (see PostgresLedger): the session's default.
    ...(options.relaxedCommits === true ? { options: "-c synchronous_commit=off" } : {}),
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: timeouts.connectMs,
    idleTimeoutMillis: 10_000,
    keepAlive: true,
    // 0 turns both off (migrations only).
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs === 0 ? 0 : timeouts.statementMs + 500,
    idle_in_transaction_session_timeout: Math.max(10_000, timeouts.statementMs * 4),
    application_name: "persona-reply",
    // Money and counters are bigint columns; micro-unit amounts stay far
    // below 2^53, so they are read as plain numbers like SQLite's integers.
    types: {
      getTypeParser: ((typeId: number, format?: "text" | "binary") =>
        typeId === INT8_TYPE_ID && format !== "binary"
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(typeId, format ?? "text")) as typeof pg.types.getTypeParser,
    },
  });
  const onClientError = (error: Error) => {
    const failure = classifyPostgresError(error);
    if (failure instanceof StorageUnavailableError) health.failed(failure);
  };
  pool.on("connect", (client) => client.on("error", onClientError));
  pool.on("error", onClientError);
  if (options.statements !== undefined) statementCounters.set(pool, options.statements);
  return pool;
}

/** The statement counter of each pool that has one ({@link createPostgresPool}). */
const statementCounters = new WeakMap<pg.Pool, StatementCounter>();

/**
 * Checks a client out before a deadline; a client that arrives after it is
 * handed straight back.
 *
 * @throws {StorageUnavailableError} `timeout` or `unreachable`
 */
export async function acquireClient(pool: pg.Pool, deadline: Deadline): Promise<pg.PoolClient> {
  const wait = deadline - Date.now();
  if (wait <= 0)
    throw new StorageUnavailableError(
      "timeout",
      "the deadline passed before a connection was free",
    );
  const connecting = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      connecting.then(
        (client) => client.release(),
        () => undefined,
      );
      reject(new StorageUnavailableError("timeout", `no database connection within ${wait} ms`));
    }, wait);
  });
  try {
    return await Promise.race([connecting, expired]);
  } catch (error) {
    throw classifyPostgresError(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one statement on a pooled client within a deadline (a named
 * statement is prepared once per connection). A client that failed for a
 * connection reason or timed out is destroyed, never reused.
 *
 * @throws {StorageUnavailableError} for connection failures and timeouts; the query's own errors as they are
 */
export async function queryWithin<Row>(
  pool: pg.Pool,
  deadline: Deadline,
  statement: { name?: string; text: string; values: unknown[] },
): Promise<Row[]> {
  const client = await acquireClient(pool, deadline);
  let broken: Error | undefined;
  try {
    statementCounters.get(pool)?.add();
    const remaining = Math.max(1, deadline - Date.now());
    const result = await client.query({ ...statement, query_timeout: remaining } as pg.QueryConfig);
    return result.rows as Row[];
  } catch (error) {
    const failure = classifyPostgresError(error);
    if (failure instanceof StorageUnavailableError) broken = failure;
    throw failure;
  } finally {
    client.release(broken);
  }
}

/** A statement that writes a table whose rows caches hold (storage/storage-migration.ts). */
const WATCHED_WRITE = /^\s*(?:update|delete\s+from)\s+"(?:api_keys|accounts|personas)"/iu;

/**
 * The pool as kysely's PostgreSQL dialect sees it, with every failed
 * client destroyed on release (kysely releases without an error, which
 * would put a timed-out or cut connection back into the pool). Failures
 * are reported to the health; recoveries come from the ledger's writes
 * and the readiness probe, so reads that still work on a full disk do not
 * hide the failure.
 */
export function kyselyPool(
  pool: pg.Pool,
  health: StoreHealth,
  changes?: ChangeFeed,
  beforeEnd: () => Promise<void> = async () => undefined,
) {
  return {
    async connect() {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        const failure = classifyPostgresError(error);
        if (failure instanceof StorageUnavailableError) health.failed(failure);
        throw failure;
      }
      let broken: Error | undefined;
      const statements = statementCounters.get(pool);
      return {
        async query(text: string, values: readonly unknown[]) {
          statements?.add();
          try {
            const result = await client.query(text, values as unknown[]);
            // This instance's own writes empty its caches at once; NOTIFY reaches the others.
            if (changes !== undefined && WATCHED_WRITE.test(text)) changes.changed();
            return result;
          } catch (error) {
            const failure = classifyPostgresError(error);
            if (failure instanceof StorageUnavailableError) {
              broken = failure;
              health.failed(failure);
            }
            throw failure;
          }
        },
        release() {
          client.release(broken);
        },
      };
    },
    async end() {
      await beforeEnd();
      await pool.end();
    },
  };
}
