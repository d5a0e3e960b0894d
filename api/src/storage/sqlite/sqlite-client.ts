import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { StorageUnavailableError, storageErrorFrom } from "../storage-error.js";
import type {
  WorkerEvent,
  WorkerOptions,
  WorkerRequest,
  WorkerResponse,
} from "./worker-protocol.js";

/** A request as the client sends it: the id is the client's to assign. */
export type ClientRequest = WorkerRequest extends infer Each
  ? Each extends WorkerRequest
    ? Omit<Each, "id">
    : never
  : never;

/** A statement's own failure inside the worker (a constraint, a syntax error): a 500, not a 503. */
export class SqliteQueryError extends Error {
  override readonly name = "SqliteQueryError";
  constructor(
    message: string,
    /** SQLite's code, e.g. `SQLITE_CONSTRAINT_PRIMARYKEY`. */
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
  /** Called with the value when the answer arrives after the caller gave up. */
  onLateAnswer: ((value: unknown) => void) | undefined;
}

/**
 * How long past a request's deadline the main thread waits for the worker
 * before giving up on it itself: the worker answers expired requests
 * without running them, so this fires only when the worker is stuck inside
 * SQLite (a hung disk).
 */
const STUCK_WORKER_GRACE_MS = 500;

/** The compiled worker script: next to this file when built, in `dist/` when running from sources. */
function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(".js")) return path.join(path.dirname(here), "sqlite-worker.js");
  const packageRoot = path.resolve(path.dirname(here), "../../..");
  const built = path.join(packageRoot, "dist/storage/sqlite/sqlite-worker.js");
  if (!fs.existsSync(built)) {
    throw new Error(`the SQLite storage worker is not built (${built}): run npm run build`);
  }
  return built;
}

/**
 * The main thread's end of one SQLite storage worker (sqlite-worker.ts):
 * sends requests, matches answers, and gives every request a deadline it
 * enforces itself too, so a stuck worker never hangs a caller.
 */
export class SqliteWorkerClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly late = new Map<number, (value: unknown) => void>();
  private closing = false;
  /** Statements the worker has executed, as of its latest answer (a running total). */
  statements = 0;

  constructor(
    private readonly options: WorkerOptions,
    private readonly onEvent: (event: WorkerEvent) => void,
    private readonly onExit: (error: Error) => void,
  ) {}

  /**
   * Starts the worker and waits until its connection is open.
   *
   * @throws the error opening the database raised in the worker (its path included)
   */
  async start(): Promise<void> {
    const worker = new Worker(workerScript(), { workerData: this.options });
    this.worker = worker;
    worker.on("message", (message: WorkerResponse | WorkerEvent) => this.receive(message));
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => {
        reject(
          new Error(`cannot open the SQLite database ${this.options.file}: ${error.message}`, {
            cause: error,
          }),
        );
      };
      worker.once("error", onError);
      worker.once("online", () => {
        // `online` fires before the script ran; a round trip proves the connection opened.
        this.request({
          kind: "query",
          sql: "select 1",
          parameters: [],
          transaction: null,
          deadline: Date.now() + 60_000,
        })
          .then(() => {
            worker.off("error", onError);
            resolve();
          })
          .catch(reject);
      });
    });
    worker.on("error", (error) => this.failAll(error));
    worker.on("exit", (code) => {
      const error = new Error(`the SQLite ${this.options.role} worker stopped (exit ${code})`);
      this.failAll(error);
      if (!this.closing) this.onExit(error);
    });
  }

  /**
   * Sends a request; resolves with the worker's value.
   *
   * @param onLateAnswer - called with the value if the worker answers after
   *   the deadline made this call reject (to undo what it did)
   * @throws {StorageUnavailableError} when the store cannot answer by the deadline
   * @throws {SqliteQueryError} for the statement's own error
   */
  request<T>(request: ClientRequest, onLateAnswer?: (value: unknown) => void): Promise<T> {
    const worker = this.worker;
    if (worker === undefined || this.closing) {
      return Promise.reject(new StorageUnavailableError("closed", "the store is closed"));
    }
    const id = this.nextId;
    this.nextId += 1;
    return new Promise<T>((resolve, reject) => {
      const wait = Math.max(0, request.deadline - Date.now()) + STUCK_WORKER_GRACE_MS;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        if (onLateAnswer !== undefined) this.late.set(id, onLateAnswer);
        reject(
          new StorageUnavailableError(
            "timeout",
            `the SQLite ${this.options.role} worker did not answer within ${wait} ms (${this.options.file})`,
          ),
        );
      }, wait);
      this.pending.set(id, {
        resolve: resolve as (value: unknown) => void,
        reject,
        timer,
        onLateAnswer,
      });
      worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }

  private receive(message: WorkerResponse | WorkerEvent): void {
    if ("event" in message) {
      this.onEvent(message);
      return;
    }
    if (message.statements !== undefined) this.statements = message.statements;
    const pending = this.pending.get(message.id);
    if (pending === undefined) {
      const late = this.late.get(message.id);
      this.late.delete(message.id);
      if (late !== undefined && message.ok) late(message.value);
      return;
    }
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.ok) pending.resolve(message.value);
    else if ("failure" in message) pending.reject(storageErrorFrom(message.failure));
    else pending.reject(new SqliteQueryError(message.error.message, message.error.code));
  }

  private failAll(error: Error): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(new StorageUnavailableError("io", error.message, { cause: error }));
      this.pending.delete(id);
    }
  }

  /** Closes the connection (SQLite checkpoints the log) and ends the thread. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined || this.closing) return;
    this.closing = true;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage({ kind: "close" });
    const forced = setTimeout(() => void worker.terminate(), 5_000);
    await exited;
    clearTimeout(forced);
  }
}
