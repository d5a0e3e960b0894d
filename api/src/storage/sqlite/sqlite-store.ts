import fs from "node:fs";
import { Kysely, sql } from "kysely";
import type { Logger } from "../../logging/logger.js";
import { ChangeFeed } from "../change-feed.js";
import type { Deadline } from "../deadline.js";
import type { AdmitOutcome, Ledger, SettleInput, SettleOutcome } from "../ledger.js";
import { migrateToLatest } from "../migrations.js";
import type { DatabaseSchema } from "../schema.js";
import { StorageStartupError } from "../startup-error.js";
import { StorageUnavailableError } from "../storage-error.js";
import type { Store } from "../store.js";
import { StoreHealth } from "../store-health.js";
import { SqliteWorkerClient } from "./sqlite-client.js";
import { prepareSqliteFile } from "./sqlite-file.js";
import { WorkerDialect } from "./worker-dialect.js";
import type { WorkerEvent, WorkerOptions } from "./worker-protocol.js";

/**
 * Files up to this size are checked with `PRAGMA quick_check` at every start
 * (it reads the whole file: a few seconds for 512 MiB); larger ones are not,
 * and the log says so.
 */
const QUICK_CHECK_MAX_BYTES = 512 * 1024 * 1024;

/**
 * Milliseconds between the reader thread's passive checkpoints:
 * at 200 requests/s ~1 300 pages of log each, 1–3 ms on that thread.
 */
export const CHECKPOINT_INTERVAL_MS = 250;

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Absolute path of the database file. */
  file: string;
  logger: Logger;
  /** Milliseconds a call waits for the store by default (then 503). */
  timeoutMs: number;
  /** Milliseconds SQLite waits for a lock inside the worker before an asynchronous retry. */
  busyTimeoutMs: number;
  /** Bytes the write-ahead log is truncated to after checkpoints (`journal_size_limit`). */
  walLimitBytes: number;
  /** Milliseconds between the writer's maintenance rounds (file identity, change check, log size). */
  maintenanceIntervalMs: number;
  /**
   * Milliseconds between passive checkpoints on the reader's thread, off the
   * writer's commits (default {@link CHECKPOINT_INTERVAL_MS}; 0 leaves
   * checkpoints to the writer's commits).
   */
  checkpointIntervalMs?: number;
  /** The env file of the demo seed, checked for traces of a lost database. */
  envFile?: string;
  /** Start a new database even where one evidently existed. */
  allowNew: boolean;
  /** Called when a write starts waiting for another process's lock (the operator CLI says so). */
  onWaiting?: () => void;
  /** Called with the size of the write-ahead log after each maintenance round. */
  onWalSize?: (bytes: number) => void;
  /** Called when a settlement commits after its caller gave up on it (to refund it). */
  onLateSettlement?: (input: SettleInput, outcome: SettleOutcome) => void;
}

/**
 * Opens the embedded store: checks the file (sqlite/sqlite-file.ts),
 * starts the writer and reader workers (sqlite-worker.ts), runs
 * `PRAGMA quick_check`, and wires kysely, the ledger, the change feed and
 * the health to them. Nothing waits on the event loop: every call is a
 * message to a worker with a deadline.
 *
 * @throws {StorageStartupError} for a file that is empty, damaged or lost
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  prepareSqliteFile(options.file, {
    allowNew: options.allowNew,
    ...(options.envFile === undefined ? {} : { envFile: options.envFile }),
  });
  const health = new StoreHealth(options.logger, options.file);
  const changes = new ChangeFeed();
  const workerOptions = (role: WorkerOptions["role"]): WorkerOptions => ({
    file: options.file,
    role,
    busyTimeoutMs: options.busyTimeoutMs,
    walLimitBytes: options.walLimitBytes,
    maintenanceIntervalMs: options.maintenanceIntervalMs,
    checkpointIntervalMs: options.checkpointIntervalMs ?? CHECKPOINT_INTERVAL_MS,
  });
  const onEvent = (event: WorkerEvent) => {
    switch (event.event) {
      case "changed":
        changes.changed();
        break;
      case "waiting":
        options.onWaiting?.();
        break;
      case "replaced":
        health.fenced(new StorageUnavailableError("replaced", event.detail));
        break;
      case "stats":
        options.onWalSize?.(event.walBytes);
        break;
      case "failure":
        health.failed(new StorageUnavailableError(event.failure.kind, event.failure.detail));
        break;
      case "recovered":
        health.recovered();
        break;
    }
  };
  let closed = false;
  const onExit = (error: Error) => {
    if (closed) return;
    changes.setTracking(false);
    health.failed(new StorageUnavailableError("io", error.message));
  };
  const writer = new SqliteWorkerClient(workerOptions("writer"), onEvent, onExit);
  const reader = new SqliteWorkerClient(workerOptions("reader"), onEvent, onExit);
  try {
    await writer.start();
    await reader.start();
  } catch (error) {
    await Promise.all([writer.close(), reader.close()]);
    throw new StorageStartupError(
      `cannot open the database ${options.file}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`,
      { cause: error },
    );
  }
  const close = async () => {
    if (closed) return;
    closed = true;
    changes.setTracking(false);
    await Promise.all([writer.close(), reader.close()]);
  };
  const database = new Kysely<DatabaseSchema>({
    dialect: new WorkerDialect({ writer, reader, timeoutMs: options.timeoutMs, close }),
  });
  /** Start-up checks and migrations wait as long as they need (nothing is served yet). */
  const migrationDatabase = new Kysely<DatabaseSchema>({
    dialect: new WorkerDialect({ writer, reader, timeoutMs: 3_600_000, close }),
  });

  try {
    const size = fs.statSync(options.file).size;
    if (size <= QUICK_CHECK_MAX_BYTES) {
      const { rows } = await sql<{
        quick_check: string;
      }>`pragma quick_check(1)`.execute(migrationDatabase);
      const check = rows[0];
      if (check?.quick_check !== "ok") {
        throw new StorageStartupError(
          `the database ${options.file} is damaged (quick_check: ${check?.quick_check ?? "no answer"}): restore it from a backup (docs/OPERATIONS.md "Backups")`,
        );
      }
    } else {
      options.logger.warn(
        { file: options.file, bytes: size },
        "the database is too large to check at every start (quick_check skipped); check it while it is offline with: sqlite3 FILE 'pragma quick_check'",
      );
    }
  } catch (error) {
    await close();
    if (error instanceof StorageStartupError) throw error;
    throw new StorageStartupError(
      `cannot read the database ${options.file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  changes.setTracking(true);

  const observed = <T>(call: Promise<T>): Promise<T> => health.observe(call);

  const ledger: Ledger = {
    // Parameter and result types come from Ledger.
    admit(input, deadline) {
      // A hold whose answer came too late is released at once (its request got 503).
      const undo = (value: unknown) => {
        const outcome = value as AdmitOutcome;
        if (!outcome.admitted || input.hold === undefined || input.hold.amountMicros === 0) return;
        void writer
          .request({
            kind: "release",
            input: {
              reservationId: input.hold.id,
              accountId: input.hold.accountId,
              amountMicros: input.hold.amountMicros,
            },
            deadline: Date.now() + options.timeoutMs,
          })
          .catch(() => undefined);
      };
      return observed(writer.request<AdmitOutcome>({ kind: "admit", input, deadline }, undo));
    },
    settle(input, deadline) {
      const late = (value: unknown) => options.onLateSettlement?.(input, value as SettleOutcome);
      return observed(writer.request<SettleOutcome>({ kind: "settle", input, deadline }, late));
    },
    release(input, deadline) {
      return observed(writer.request<boolean>({ kind: "release", input, deadline }));
    },
    record(usage, deadline) {
      return observed(writer.request<void>({ kind: "record", input: usage, deadline }));
    },
  };

  return {
    dialect: "sqlite",
    database,
    ledger,
    changes,
    health,
    location: options.file,
    timeoutMs: options.timeoutMs,
    statementCount: () => writer.statements + reader.statements,
    migrate: (migrations) =>
      migrateToLatest(migrationDatabase as unknown as Kysely<unknown>, migrations),
    async probe(instanceId: string, deadline: Deadline): Promise<void> {
      const fence = health.current;
      if (fence?.kind === "replaced") throw fence;
      await observed(writer.request({ kind: "probe", instanceId, deadline }));
    },
    async backup(destination: string): Promise<{ bytes: number }> {
      return writer.request<{ bytes: number }>({
        kind: "backup",
        destination,
        deadline: Date.now() + 3_600_000,
      });
    },
    close,
  };
}
