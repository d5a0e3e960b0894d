/**
 * What went wrong with the store, in words an operator acts on: every failure a client cannot
 * cause and a retry may cure is one of these kinds, answered 503 with
 * `Retry-After` in the endpoint's format and logged once with its cause.
 *
 * - `locked`: another process holds the SQLite write lock past the deadline
 * - `timeout`: the database did not answer within the deadline (hung server,
 *   pool exhausted, statement timeout)
 * - `unreachable`: no connection (refused, reset, terminated)
 * - `full`: the disk (or SQLite's page limit) is full
 * - `io`: the file system failed (I/O error)
 * - `read_only`: the file or server only accepts reads
 * - `corrupt`: the file is not a sound SQLite database
 * - `replaced`: the file at the configured path is not the file open (deleted or swapped)
 * - `no_schema`: the database has none of the service's tables (an empty or recreated database)
 * - `closed`: the store is shutting down
 */
export type StorageFailureKind =
  | "locked"
  | "timeout"
  | "unreachable"
  | "full"
  | "io"
  | "read_only"
  | "corrupt"
  | "replaced"
  | "no_schema"
  | "closed";

const DESCRIPTIONS: Record<StorageFailureKind, string> = {
  locked: "another process holds the database's write lock",
  timeout: "the database did not answer in time",
  unreachable: "the database cannot be reached",
  full: "the database's disk is full",
  io: "the database's file system reported an I/O error",
  read_only: "the database only accepts reads",
  corrupt: "the database file is damaged",
  replaced: "the database file was deleted or replaced while in use",
  no_schema: "the database has no schema (an empty or recreated database; restart to migrate)",
  closed: "the service is shutting down",
};

/** Seconds a client is asked to wait before retrying (`Retry-After`), by kind. */
const RETRY_AFTER_SECONDS: Record<StorageFailureKind, number> = {
  locked: 2,
  timeout: 2,
  unreachable: 5,
  // The writer retries every 250 ms and the first write after space returns succeeds.
  full: 5,
  io: 30,
  read_only: 30,
  corrupt: 60,
  replaced: 60,
  no_schema: 60,
  closed: 5,
};

/**
 * The store could not do what was asked, for a reason outside the request
 * (see {@link StorageFailureKind}). Answered 503 with `Retry-After`; a
 * request refused with it is not charged and consumes no rate-limit window.
 */
export class StorageUnavailableError extends Error {
  override readonly name = "StorageUnavailableError";
  constructor(
    readonly kind: StorageFailureKind,
    /** The underlying error's own words (SQLite's or PostgreSQL's message), for the log only. */
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(DESCRIPTIONS[kind], options);
  }

  /** Whole seconds a client should wait before retrying. */
  get retryAfterSeconds(): number {
    return RETRY_AFTER_SECONDS[this.kind];
  }
}

/** A plain-data copy of a storage failure, as a worker thread posts it. */
export interface StorageFailureData {
  kind: StorageFailureKind;
  detail: string;
  /** The driver's code (`SQLITE_FULL`, `57P01` …), when there is one. */
  code?: string;
}

/**
 * A SQLite result code (or its extended form) and message → the kind of
 * failure, or undefined for a query's own error.
 */
export function sqliteFailureKind(
  code: string | undefined,
  message = "",
): StorageFailureKind | undefined {
  if (code === undefined) return undefined;
  if (
    code === "SQLITE_ERROR" &&
    /^no such table: (?:accounts|api_keys|personas|usage_records|rate_limit_buckets|balance_reservations|storage_probes)\b/u.test(
      message,
    )
  ) {
    return "no_schema";
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "locked";
  if (code === "SQLITE_FULL") return "full";
  if (code.startsWith("SQLITE_IOERR")) return "io";
  if (code.startsWith("SQLITE_READONLY")) return "read_only";
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") return "corrupt";
  if (code.startsWith("SQLITE_CANTOPEN")) return "io";
  return undefined;
}

/** Connection-level error codes of Node's sockets. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * A PostgreSQL (or `pg` client) error → the kind of failure, or undefined
 * for a query's own error (a constraint violation, a syntax error), which
 * stays a 500. SQLSTATE classes: 08 connection exception, 53 insufficient
 * resources (53100 disk full), 57P01–57P03 shutdown, 57014 cancelled by
 * `statement_timeout`, 25006 read-only transaction.
 */
export function postgresFailureKind(error: unknown): StorageFailureKind | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = "code" in error && typeof error.code === "string" ? error.code : undefined;
  const message = error instanceof Error ? error.message : "";
  if (code !== undefined && SOCKET_CODES.has(code)) return "unreachable";
  if (code === "53100") return "full";
  // undefined_table: the service's tables are gone (an empty or recreated database).
  if (code === "42P01") return "no_schema";
  if (code === "25006") return "read_only";
  if (code === "57014") return "timeout";
  if (code !== undefined && (code.startsWith("08") || /^57P0[1-3]$/u.test(code))) {
    return "unreachable";
  }
  if (code?.startsWith("53")) return "unreachable";
  if (
    /Query read timeout|timeout exceeded when trying to connect|Connection terminated|connection timeout|Client has encountered a connection error|Connection terminated unexpectedly|Client was closed/iu.test(
      message,
    )
  ) {
    return /timeout/iu.test(message) ? "timeout" : "unreachable";
  }
  return undefined;
}

/** Turns a posted failure back into an error on the main thread. */
export function storageErrorFrom(data: StorageFailureData): StorageUnavailableError {
  return new StorageUnavailableError(data.kind, data.detail);
}
