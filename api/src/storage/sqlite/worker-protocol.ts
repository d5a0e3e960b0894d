import type { AdmitInput, ReleaseInput, SettleInput } from "../ledger.js";
import type { UsageRecordsTable } from "../ledger-usage-row.js";
import type { StorageFailureData } from "../storage-error.js";

/**
 * Messages between the main thread and a SQLite storage worker
 * (sqlite-worker.ts). Every request carries a deadline (Unix ms): the
 * worker answers a request whose deadline passed before it ran with a
 * `timeout` (or `locked`) failure and never runs it late.
 */
export type WorkerRequest =
  | QueryRequest
  | TransactionRequest
  | LedgerRequest
  | { id: number; kind: "probe"; deadline: number; instanceId: string }
  | { id: number; kind: "checkpoint"; deadline: number }
  | { id: number; kind: "backup"; deadline: number; destination: string };

/** A compiled query (kysely's SQL and parameters), alone or inside a transaction. */
export interface QueryRequest {
  id: number;
  kind: "query";
  sql: string;
  parameters: readonly unknown[];
  /** The transaction it belongs to, or null for a statement of its own. */
  transaction: number | null;
  deadline: number;
}

/** Begins, commits or rolls back a transaction a kysely connection drives. */
export interface TransactionRequest {
  id: number;
  kind: "begin" | "commit" | "rollback";
  transaction: number;
  deadline: number;
}

/** One of the request path's ledger operations (storage/ledger.ts). */
export type LedgerRequest = { id: number; deadline: number } & (
  | { kind: "admit"; input: AdmitInput }
  | { kind: "settle"; input: SettleInput }
  | { kind: "release"; input: ReleaseInput }
  | { kind: "record"; input: UsageRecordsTable }
);

/** A statement's result as kysely's driver reports it. */
export interface QueryResultData {
  rows: unknown[];
  numAffectedRows?: number;
  insertId?: number | bigint;
}

/**
 * The answer to one request, with `statements`: how many statements the
 * worker has executed so far (a running total, set by the worker as it
 * posts; for `persona_storage_statements_total`).
 */
export type WorkerResponse = { statements?: number } & (
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; failure: StorageFailureData }
  | { id: number; ok: false; error: { message: string; code?: string } }
);

/** What a worker tells the main thread of its own accord. */
export type WorkerEvent =
  /** Rows that cached lookups depend on changed (keys, accounts, personas). */
  | { event: "changed"; generation: number }
  /** A write waits for a lock another process holds. */
  | { event: "waiting"; since: number }
  /** The file at the configured path is no longer the file open. */
  | { event: "replaced"; detail: string }
  /** Sizes, for metrics: the write-ahead log in bytes. */
  | { event: "stats"; walBytes: number }
  /** A storage failure the worker met (logged once per incident by the main thread). */
  | { event: "failure"; failure: StorageFailureData }
  /** The worker could write again after failures. */
  | { event: "recovered" };

/** What a worker is started with (`workerData`). */
export interface WorkerOptions {
  /** Absolute path of the database file. */
  file: string;
  /** `writer` runs every write and transaction; `reader` only reads (WAL lets it read while the writer writes). */
  role: "writer" | "reader";
  /** Milliseconds SQLite itself waits for a lock before the worker retries asynchronously. */
  busyTimeoutMs: number;
  /** `journal_size_limit`: bytes the write-ahead log is truncated to after a checkpoint. */
  walLimitBytes: number;
  /** Milliseconds between the writer's maintenance rounds (file identity, change check, log size). */
  maintenanceIntervalMs: number;
  /**
   * Milliseconds between the reader's passive checkpoints, which keep
   * checkpoints off the writer's commits (0: none; the writer's automatic
   * checkpoint does them, inside its commits). Unused by the writer.
   */
  checkpointIntervalMs: number;
}
