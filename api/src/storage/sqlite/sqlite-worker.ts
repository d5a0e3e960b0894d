/**
 * The SQLite storage worker: a thread that owns one better-sqlite3
 * connection, so no wait on the database — a lock another process holds,
 * an fsync, a long report — ever blocks the event loop that serves HTTP
 *. The main thread talks to it through sqlite-client.ts.
 *
 * The `writer` runs every write. Writes that arrive together are
 * group-committed: one `BEGIN IMMEDIATE … COMMIT`, each under its own
 * savepoint so one failing statement does not undo the others, answered
 * only after the commit — and, whenever the batch holds anything but
 * admissions and releases, only after an fsync of the write-ahead log
 * (syncThenPost), so a settled request is on disk before its 200 leaves
 *. A write meeting a
 * lock waits `busyTimeoutMs` inside SQLite, then retries asynchronously
 * until each request's deadline. Kysely transactions run alone, in order.
 * The `reader` answers plain reads on its own connection (WAL readers never
 * wait for the writer).
 *
 * Maintenance (writer): every `maintenanceIntervalMs` (50 ms) it notices
 * commits of other processes (`PRAGMA data_version`) for cache
 * invalidation; every fourth round it compares the open file with the file
 * at the path (a deleted or replaced file fences all writes) and reports
 * the write-ahead log's size; every 200th (10 s), when the log has grown
 * past `walLimitBytes` (behind a long reader), it runs a truncating
 * checkpoint so the log shrinks back. While the disk is full it tries a
 * truncating checkpoint before every write and every round, at most every
 * 250 ms (makeRoom), so the service recovers by itself within a second of
 * space coming back.
 *
 * Checkpoints stay off the writer's commits: a checkpoint copies
 * the log into the database file and fsyncs it, 1–4 ms (27 ms for a large
 * log) that SQLite's automatic checkpoint spends inside the COMMIT that
 * crosses 1 000 pages — with ~13 pages a commit, one commit in ~75, and
 * every request queued behind it. The reader instead runs a passive
 * checkpoint every `checkpointIntervalMs` (250 ms) on a connection of its
 * own, beside the writer's commits (a passive checkpoint never takes the
 * write lock; a round repeats it, up to three times, while commits landed
 * during it); the writer's automatic checkpoint stays only as a backstop
 * at {@link WRITER_AUTOCHECKPOINT_PAGES}, for a log the passive ones never
 * finish because commits keep landing during them.
 */
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import SqliteDatabase, { type Statement } from "better-sqlite3";
import { type StorageFailureData, sqliteFailureKind } from "../storage-error.js";
import { SqliteLedger } from "./sqlite-ledger.js";
import type {
  LedgerRequest,
  QueryRequest,
  QueryResultData,
  TransactionRequest,
  WorkerEvent,
  WorkerOptions,
  WorkerRequest,
  WorkerResponse,
} from "./worker-protocol.js";

const port = parentPort;
if (port === null) throw new Error("sqlite-worker.ts runs only as a worker thread");
const options = workerData as WorkerOptions;
const isWriter = options.role === "writer";
/**
 * The writer's automatic checkpoint (pages of log), a backstop only: the
 * reader's passive checkpoints keep the log under it. A log that reaches it
 * (8 MB of 4 KiB pages; bounded, so a small disk is not filled by the log)
 * is checkpointed by the commit that crosses it — only the pages the passive
 * checkpoints have not copied yet — and the next write starts the log over.
 */
const WRITER_AUTOCHECKPOINT_PAGES = 2_000;

const connection = new SqliteDatabase(options.file, {
  readonly: !isWriter,
  fileMustExist: !isWriter,
});
connection.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
if (isWriter) {
  // A new file frees pages back to the file system on `incremental_vacuum`
  // (usage retention); only possible before the first table (an existing
  // file changes mode with `persona-admin storage vacuum`).
  if (Number(connection.pragma("page_count", { simple: true })) === 0) {
    connection.pragma("auto_vacuum = INCREMENTAL");
  }
  connection.pragma("journal_mode = WAL");
  connection.pragma("foreign_keys = ON");
  connection.pragma(`journal_size_limit = ${options.walLimitBytes}`);
  connection.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
}
const openedFile = fs.statSync(options.file);

/**
 * Statements this worker has executed (statements per request):
 * each run, get, all or iterate of a prepared statement and each `exec`;
 * pragmas are not counted. Sent with every answer (`statements`).
 */
let executed = 0;

/** Makes a prepared statement count its executions in {@link executed}. */
function counted(statement: Statement): Statement {
  const { run, get, all, iterate } = statement;
  statement.run = (...parameters: unknown[]) => {
    executed += 1;
    return run.apply(statement, parameters);
  };
  statement.get = (...parameters: unknown[]) => {
    executed += 1;
    return get.apply(statement, parameters);
  };
  statement.all = (...parameters: unknown[]) => {
    executed += 1;
    return all.apply(statement, parameters);
  };
  statement.iterate = (...parameters: unknown[]) => {
    executed += 1;
    return iterate.apply(statement, parameters);
  };
  return statement;
}

/** `connection.exec`, counted in {@link executed}. */
function exec(sql: string): void {
  executed += 1;
  connection.exec(sql);
}

/** Statements prepared once per SQL text (a few dozen exist). */
const statements = new Map<string, Statement>();
function prepare(sql: string): Statement {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = counted(connection.prepare(sql));
    if (statements.size >= 512) {
      const oldest = statements.keys().next().value;
      if (oldest !== undefined) statements.delete(oldest);
    }
    statements.set(sql, statement);
  }
  return statement;
}
const ledger = new SqliteLedger(prepare);

function post(message: WorkerResponse | WorkerEvent): void {
  if ("id" in message) message.statements = executed;
  port?.postMessage(message);
}

function failureOf(error: unknown): StorageFailureData | undefined {
  const code =
    typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
  const kind = sqliteFailureKind(code, error instanceof Error ? error.message : "");
  if (kind === undefined) return undefined;
  return {
    kind,
    detail: `${error instanceof Error ? error.message : String(error)} (${options.file})`,
    ...(code === undefined ? {} : { code }),
  };
}

function answerError(id: number, error: unknown): void {
  const failure = failureOf(error);
  if (failure !== undefined) {
    post({ id, ok: false, failure });
    return;
  }
  const code =
    typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
  post({
    id,
    ok: false,
    error: {
      message: error instanceof Error ? error.message : String(error),
      ...(code === undefined ? {} : { code }),
    },
  });
}

/** `pragma incremental_vacuum(N)` (usage retention gives freed pages back with it). */
const INCREMENTAL_VACUUM = /^\s*pragma\s+incremental_vacuum\b/iu;

function runQuery(request: QueryRequest): QueryResultData {
  const statement = prepare(request.sql);
  const parameters = request.parameters as unknown[];
  if (statement.reader) return { rows: statement.all(parameters) };
  if (INCREMENTAL_VACUUM.test(request.sql)) {
    // It frees one page per step, and run() steps once: exec runs it to the end.
    exec(request.sql);
    return { rows: [] };
  }
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { rows: [], numAffectedRows: changes, insertId: lastInsertRowid };
}

function runLedger(request: LedgerRequest): unknown {
  switch (request.kind) {
    case "admit":
      return ledger.admit(request.input);
    case "settle":
      return ledger.settle(request.input);
    case "release":
      return ledger.release(request.input);
    case "record":
      ledger.record(request.input);
      return undefined;
  }
}

// --- state -----------------------------------------------------------------

const queue: WorkerRequest[] = [];
let drainScheduled = false;
let openTransaction: number | null = null;
let transactionTimer: NodeJS.Timeout | undefined;
/** Transactions the worker rolled back on its own (idle too long); their late messages fail. */
const abandoned = new Set<number>();
/** Since when a write waits for another process's lock (null: not waiting). */
let lockWaitSince: number | null = null;
/** Whether the current wait was reported. */
let waitReported = false;
/** Why writes are fenced (the file was deleted or replaced), or null. */
let fenced: string | null = null;
/** Whether the last write failed for a storage reason (reported recovery follows). */
let failing = false;
/** Whether the last write failed because the disk is full (then the log is emptied before writing). */
let diskFull = false;
/** When the log was last checkpointed to make room on a full disk (Unix ms). */
let lastRoomAttempt = 0;
let synchronous: "FULL" | "NORMAL" | undefined;
let lastGeneration = -1;
let lastDataVersion = -1;
let closing = false;

/** A transaction may sit idle this long before the worker rolls it back. */
const TRANSACTION_IDLE_MS = 30_000;
/** Delay before retrying a write that met another process's lock. */
const LOCK_RETRY_MS = 10;
/** A wait for another process's lock is reported once it lasts this long. */
const LOCK_WAIT_REPORT_MS = 1_000;
/** While the disk is full, the log is checkpointed to make room at most this often. */
const ROOM_ATTEMPT_MS = 250;

function scheduleDrain(delayMs = 0): void {
  if (drainScheduled) return;
  drainScheduled = true;
  const run = () => {
    drainScheduled = false;
    drain();
  };
  if (delayMs === 0) setImmediate(run);
  else setTimeout(run, delayMs);
}

function isPlainRead(request: WorkerRequest): boolean {
  if (request.kind !== "query" || request.transaction !== null) return false;
  try {
    return prepare(request.sql).readonly;
  } catch {
    return true; // a statement that does not prepare fails on its own, outside any batch
  }
}

/** Answers requests whose deadline passed while they waited; they never run. */
function expire(now: number): void {
  for (let index = queue.length - 1; index >= 0; index -= 1) {
    const request = queue[index];
    if (request === undefined || request.deadline > now) continue;
    if (
      openTransaction !== null &&
      "transaction" in request &&
      request.transaction === openTransaction
    ) {
      continue; // a transaction's own statements run; the idle watchdog bounds it
    }
    queue.splice(index, 1);
    const kind = lockWaitSince === null ? "timeout" : "locked";
    post({
      id: request.id,
      ok: false,
      failure: {
        kind,
        detail:
          kind === "locked"
            ? `another process has held the write lock for ${now - (lockWaitSince ?? now)} ms (${options.file})`
            : `the storage worker did not reach the request before its deadline (${options.file})`,
      },
    });
  }
}

function isBusy(error: unknown): boolean {
  return failureOf(error)?.kind === "locked";
}

function beginImmediate(): boolean {
  try {
    exec("BEGIN IMMEDIATE");
  } catch (error) {
    if (isBusy(error)) {
      const now = Date.now();
      lockWaitSince ??= now;
      // Said once per wait, and only for a wait that lasts (brief contention is normal).
      if (!waitReported && now - lockWaitSince >= LOCK_WAIT_REPORT_MS) {
        waitReported = true;
        post({ event: "waiting", since: lockWaitSince });
      }
      return false;
    }
    throw error;
  }
  lockWaitSince = null;
  waitReported = false;
  return true;
}

function rollbackQuietly(): void {
  // SQLite rolls back by itself on some errors (full, I/O); only roll back what is still open.
  if (connection.inTransaction) {
    try {
      exec("ROLLBACK");
    } catch {
      // The connection reports the real error on the next statement.
    }
  }
}

function reportFailure(error: unknown): void {
  const failure = failureOf(error);
  if (failure !== undefined) {
    failing = true;
    if (failure.kind === "full") diskFull = true;
    post({ event: "failure", failure });
  }
}

function reportSuccess(): void {
  diskFull = false;
  if (failing) {
    failing = false;
    post({ event: "recovered" });
  }
}

/**
 * On a full disk, before the next write: checkpoints the write-ahead log
 * into the database file and truncates it. A log that cannot be
 * reset keeps the disk full for good — every new write appends to it and
 * the space that comes back is eaten by the load before an automatic
 * (passive) checkpoint completes — so the space the log held is given back
 * first. Fails quietly while there is no room for the pages it moves (the
 * write that follows reports the full disk); tried at most every
 * {@link ROOM_ATTEMPT_MS}. Nothing to do in a transaction of our own.
 */
function makeRoom(now: number): void {
  if (!diskFull || connection.inTransaction || now - lastRoomAttempt < ROOM_ATTEMPT_MS) return;
  lastRoomAttempt = now;
  try {
    const [result] = connection.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
    if (result?.busy === 0) diskFull = false;
  } catch {
    // Still no room (or a reader in the way): the write that follows says so.
  }
}

function setSynchronous(level: "FULL" | "NORMAL"): void {
  if (synchronous === level) return;
  connection.pragma(`synchronous = ${level}`);
  synchronous = level;
}

function fencedFailure(id: number): void {
  post({
    id,
    ok: false,
    failure: { kind: "replaced", detail: `${fenced ?? "file replaced"} (${options.file})` },
  });
}

/**
 * Whether a write must be on disk before it is answered: everything but
 * admissions and releases, whose loss in a power failure loses no money
 * and no record (a reservation lost with its request; the sweeper and the
 * restart release the rest).
 */
function isDurable(request: WorkerRequest): boolean {
  return request.kind !== "admit" && request.kind !== "release";
}

/** Runs a group of writes in one transaction; false when the lock is held elsewhere. */
function runBatch(batch: WorkerRequest[]): boolean {
  if (fenced !== null) {
    for (const request of batch) fencedFailure(request.id);
    return true;
  }
  // Every batch commits without an fsync; a durable one is answered only after
  // the write-ahead log has been synced (syncThenPost), without holding the
  // write lock or this thread meanwhile.
  setSynchronous("NORMAL");
  makeRoom(Date.now());
  try {
    if (!beginImmediate()) return false;
  } catch (error) {
    reportFailure(error);
    for (const request of batch) answerError(request.id, error);
    return true;
  }
  const results: WorkerResponse[] = [];
  for (const request of batch) {
    try {
      exec("SAVEPOINT request");
      let value: unknown;
      if (request.kind === "query") value = runQuery(request);
      else if (request.kind === "probe") value = runProbe(request.instanceId);
      else value = runLedger(request as LedgerRequest);
      exec("RELEASE request");
      results.push({ id: request.id, ok: true, value });
    } catch (error) {
      if (failureOf(error) !== undefined || !connection.inTransaction) {
        // Full, I/O, read-only, corrupt: the whole batch fails with the real error.
        rollbackQuietly();
        reportFailure(error);
        for (const each of batch) answerError(each.id, error);
        return true;
      }
      exec("ROLLBACK TO request");
      exec("RELEASE request");
      const code =
        typeof error === "object" && error !== null && "code" in error
          ? String(error.code)
          : undefined;
      results.push({
        id: request.id,
        ok: false,
        error: {
          message: error instanceof Error ? error.message : String(error),
          ...(code === undefined ? {} : { code }),
        },
      });
    }
  }
  try {
    exec("COMMIT");
  } catch (error) {
    rollbackQuietly();
    reportFailure(error);
    for (const request of batch) answerError(request.id, error);
    return true;
  }
  reportSuccess();
  // The change notice goes first, so caches are emptied before any caller reads again.
  noticeChanges();
  if (!batch.some(isDurable)) for (const result of results) post(result);
  else if (!syncing && awaitingSync.length === 0 && queue.length === 0) syncHere(results);
  else syncThenPost(results);
  return true;
}

// --- durability: group commit with the log's fsync off the write path -------

/** The write-ahead log's file descriptor, opened once it exists. */
let walDescriptor: number | undefined;
/** Answers of commits not yet covered by a started sync. */
let awaitingSync: WorkerResponse[] = [];
/** Whether an fsync of the log is under way. */
let syncing = false;

/**
 * Answers `results` once the write-ahead log is on disk. Commits run with
 * `synchronous = NORMAL` (SQLite writes the log, without fsync); an
 * `fdatasync` of the log file afterwards makes every frame written before
 * it durable — what `synchronous = FULL` does inside each COMMIT, but here
 * one sync covers every commit made before it started (group commit), and
 * runs on libuv's pool while this thread goes on with admissions and the
 * next batch instead of waiting with the write lock held. (SQLite syncs the
 * log's header itself when it begins reusing the file after a checkpoint,
 * and the database file after each checkpoint, in NORMAL mode too.)
 */
function syncThenPost(results: WorkerResponse[]): void {
  awaitingSync.push(...results);
  if (!syncing) startSync();
}

/**
 * Answers `covered` after the sync that covers them: with their values when
 * it succeeded, with an `io` failure when it did not (the commit may be lost
 * in a power failure: its request gets a 503, never a 200).
 */
function answerSynced(covered: WorkerResponse[], error: NodeJS.ErrnoException | null): void {
  if (error === null) {
    for (const result of covered) post(result);
    return;
  }
  const failure: StorageFailureData = {
    kind: "io",
    detail: `fsync of the write-ahead log failed: ${error.message} (${options.file})`,
    ...(error.code === undefined ? {} : { code: error.code }),
  };
  failing = true;
  post({ event: "failure", failure });
  for (const result of covered) post({ id: result.id, ok: false, failure });
}

/**
 * The same sync on this thread, when nothing else waits for the writer and
 * no sync is under way (at a moderate rate, most batches): it saves the
 * hand-off to libuv's pool and back — two thread wake-ups, each a chance to
 * wait for a core on a busy machine — at the cost of holding this thread
 * for the sync; whatever arrives meanwhile is the next batch.
 */
function syncHere(results: WorkerResponse[]): void {
  let failure: NodeJS.ErrnoException | null = null;
  try {
    walDescriptor ??= fs.openSync(`${options.file}-wal`, "r");
    fs.fdatasyncSync(walDescriptor);
  } catch (error) {
    failure = error as NodeJS.ErrnoException;
  }
  answerSynced(results, failure);
}

function startSync(): void {
  const covered = awaitingSync;
  awaitingSync = [];
  syncing = true;
  const finish = (error: NodeJS.ErrnoException | null) => {
    syncing = false;
    if (closing) {
      if (walDescriptor !== undefined) fs.closeSync(walDescriptor);
      return;
    }
    answerSynced(covered, error);
    if (awaitingSync.length > 0) startSync();
  };
  try {
    walDescriptor ??= fs.openSync(`${options.file}-wal`, "r");
    fs.fdatasync(walDescriptor, finish);
  } catch (error) {
    finish(error as NodeJS.ErrnoException);
  }
}

function runProbe(instanceId: string): { probedAt: string } {
  const probedAt = new Date().toISOString();
  // Reading a table of the schema proves migrations are there; the upsert proves the disk takes writes.
  prepare("select count(*) as count from accounts where 0").get();
  prepare(
    "insert into storage_probes (instance_id, probed_at) values (?, ?) on conflict (instance_id) do update set probed_at = excluded.probed_at",
  ).run(instanceId, probedAt);
  return { probedAt };
}

function runTransactionItems(): void {
  for (let index = 0; index < queue.length; ) {
    const request = queue[index];
    if (
      request === undefined ||
      !("transaction" in request) ||
      request.transaction !== openTransaction
    ) {
      index += 1;
      continue;
    }
    queue.splice(index, 1);
    armTransactionWatchdog();
    try {
      if (request.kind === "query") {
        post({ id: request.id, ok: true, value: runQuery(request) });
      } else if (request.kind === "commit" || request.kind === "rollback") {
        const committing = request.kind === "commit";
        exec(committing ? "COMMIT" : "ROLLBACK");
        endTransaction();
        if (committing) {
          reportSuccess();
          noticeChanges();
        }
        // After the change notice, so caches are emptied before the caller reads again.
        post({ id: request.id, ok: true, value: undefined });
        scheduleDrain();
        return;
      }
    } catch (error) {
      if (request.kind === "commit" || !connection.inTransaction) {
        rollbackQuietly();
        endTransaction();
        reportFailure(error);
        answerError(request.id, error);
        scheduleDrain();
        return;
      }
      answerError(request.id, error);
    }
  }
}

function armTransactionWatchdog(): void {
  if (transactionTimer !== undefined) clearTimeout(transactionTimer);
  const transaction = openTransaction;
  transactionTimer = setTimeout(() => {
    if (openTransaction !== transaction || transaction === null) return;
    rollbackQuietly();
    abandoned.add(transaction);
    endTransaction();
    scheduleDrain();
  }, TRANSACTION_IDLE_MS);
  transactionTimer.unref();
}

function endTransaction(): void {
  openTransaction = null;
  if (transactionTimer !== undefined) clearTimeout(transactionTimer);
  transactionTimer = undefined;
}

/** Starts the transaction at the head of the queue; false when the lock is held elsewhere. */
function startTransaction(request: TransactionRequest): boolean {
  if (fenced !== null) {
    queue.shift();
    fencedFailure(request.id);
    abandoned.add(request.transaction);
    return true;
  }
  setSynchronous("FULL");
  makeRoom(Date.now());
  try {
    if (!beginImmediate()) return false;
  } catch (error) {
    queue.shift();
    reportFailure(error);
    abandoned.add(request.transaction);
    answerError(request.id, error);
    return true;
  }
  queue.shift();
  openTransaction = request.transaction;
  armTransactionWatchdog();
  post({ id: request.id, ok: true, value: undefined });
  return true;
}

function drain(): void {
  if (closing) return;
  expire(Date.now());
  if (openTransaction !== null) {
    runTransactionItems();
    return;
  }
  const batch: WorkerRequest[] = [];
  const waiting: WorkerRequest[] = [];
  while (queue.length > 0) {
    const request = queue[0];
    if (request === undefined || request.kind === "begin") break;
    queue.shift();
    if ("transaction" in request && request.transaction !== null) {
      // A statement of a transaction that is not open: it was rolled back by the watchdog.
      abandoned.delete(request.transaction);
      post({
        id: request.id,
        ok: false,
        error: { message: "the transaction was rolled back after being idle too long" },
      });
      continue;
    }
    if (!isWriter || isPlainRead(request)) {
      try {
        if (request.kind !== "query") throw new Error(`a ${request.kind} request needs the writer`);
        post({ id: request.id, ok: true, value: runQuery(request) });
      } catch (error) {
        answerError(request.id, error);
      }
      continue;
    }
    if (request.kind === "checkpoint") {
      waiting.push(request);
      continue;
    }
    if (request.kind === "backup") {
      startBackup(request.id, request.destination);
      continue;
    }
    batch.push(request);
  }
  // Admissions and releases need no fsync: they commit first, on their own, so
  // they are not kept waiting behind the settlements' flush to disk.
  const quick = batch.filter((request) => !isDurable(request));
  const durable = batch.filter(isDurable);
  for (const group of [quick, durable]) {
    if (group.length > 0 && !runBatch(group)) {
      queue.unshift(...(group === quick ? batch : durable), ...waiting);
      scheduleDrain(LOCK_RETRY_MS);
      return;
    }
  }
  for (const request of waiting) {
    try {
      post({ id: request.id, ok: true, value: checkpoint() });
    } catch (error) {
      answerError(request.id, error);
    }
  }
  const head = queue[0];
  if (head?.kind === "begin") {
    if (!startTransaction(head)) {
      scheduleDrain(LOCK_RETRY_MS);
      return;
    }
    if (queue.length > 0) scheduleDrain();
  }
}

// --- maintenance -------------------------------------------------------------

function checkpoint(): { walBytes: number } {
  connection.pragma("wal_checkpoint(TRUNCATE)");
  return { walBytes: walBytes() };
}

function walBytes(): number {
  try {
    return fs.statSync(`${options.file}-wal`).size;
  } catch {
    return 0;
  }
}

/** Posts the change generation when rows that caches depend on changed. */
function noticeChanges(): void {
  try {
    const row = prepare("select value from change_counter where id = 1").get() as
      | { value: number }
      | undefined;
    const generation = Number(row?.value ?? 0);
    if (generation !== lastGeneration) {
      lastGeneration = generation;
      post({ event: "changed", generation });
    }
  } catch {
    // Before migrations the table does not exist yet.
  }
}

function checkFileIdentity(): void {
  if (fenced !== null) return;
  let reason: string | null = null;
  try {
    const current = fs.statSync(options.file);
    if (current.ino !== openedFile.ino || current.dev !== openedFile.dev) {
      reason =
        "the database file at the configured path is not the file this process opened (replaced)";
    }
  } catch {
    reason = "the database file at the configured path was deleted";
  }
  if (reason !== null) {
    fenced = reason;
    post({ event: "replaced", detail: `${reason} (${options.file})` });
  }
}

function startBackup(id: number, destination: string): void {
  const temporary = `${destination}.partial-${process.pid}`;
  connection
    .backup(temporary)
    .then(() => {
      fs.chmodSync(temporary, 0o600);
      fs.renameSync(temporary, destination);
      post({ id, ok: true, value: { bytes: fs.statSync(destination).size } });
    })
    .catch((error: unknown) => {
      fs.rmSync(temporary, { force: true });
      answerError(id, error);
    });
}

let ticks = 0;
/** File identity and log size are checked every 4th round; a log over its limit is truncated every 200th. */
const IDENTITY_EVERY_TICKS = 4;
const CHECKPOINT_EVERY_TICKS = 200;
if (isWriter) {
  const timer = setInterval(() => {
    if (closing) return;
    ticks += 1;
    // A full disk is retried without waiting for a request: the space the log holds comes back first.
    if (openTransaction === null) makeRoom(Date.now());
    try {
      // Another process committed (the operator CLI, another instance): caches may be stale.
      const version = Number(connection.pragma("data_version", { simple: true }));
      if (version !== lastDataVersion) {
        lastDataVersion = version;
        noticeChanges();
      }
      // Only a log grown past its limit (behind a long reader): truncating a
      // log in use costs tens of ms here and makes its next syncs grow the file.
      if (
        ticks % CHECKPOINT_EVERY_TICKS === 0 &&
        openTransaction === null &&
        walBytes() > options.walLimitBytes
      ) {
        post({ event: "stats", walBytes: checkpoint().walBytes });
      }
    } catch {
      // A locked or failing database is reported by the writes themselves.
    }
    if (ticks % IDENTITY_EVERY_TICKS === 0) {
      checkFileIdentity();
      post({ event: "stats", walBytes: walBytes() });
    }
  }, options.maintenanceIntervalMs);
  timer.unref();
  noticeChanges();
}

/**
 * The reader's passive checkpoints (see the top of this file), on a
 * read-write connection of their own: they copy the log into the database
 * file beside the writer's commits, without its lock. A checkpoint that
 * fails (the disk full, another process checkpointing) is tried again at
 * the next round; the writer's own checkpoints cover what these cannot.
 */
let checkpointer: SqliteDatabase.Database | undefined;
if (!isWriter && options.checkpointIntervalMs > 0) {
  try {
    checkpointer = new SqliteDatabase(options.file, { fileMustExist: true });
    checkpointer.pragma("busy_timeout = 0");
  } catch {
    // A file this process may not write: the writer's commits checkpoint (and fail) alone.
    checkpointer = undefined;
  }
  const connectionOfCheckpoints = checkpointer;
  if (connectionOfCheckpoints !== undefined) {
    const timer = setInterval(() => {
      if (closing) return;
      try {
        // Commits that landed during a checkpoint keep the log from starting
        // over at the next write: the few pages they added are copied at once.
        for (let attempt = 0; attempt < 3; attempt += 1) {
          const [result] = connectionOfCheckpoints.pragma("wal_checkpoint(PASSIVE)") as Array<{
            busy: number;
            log: number;
            checkpointed: number;
          }>;
          if (result === undefined || result.busy !== 0 || result.checkpointed >= result.log) break;
        }
      } catch {
        // Busy or failing: the next round tries again.
      }
    }, options.checkpointIntervalMs);
    timer.unref();
  }
}

port.on("message", (message: WorkerRequest | { kind: "close" }) => {
  if (message.kind === "close") {
    closing = true;
    rollbackQuietly();
    // A sync under way closes the log's descriptor when it ends.
    if (walDescriptor !== undefined && !syncing) fs.closeSync(walDescriptor);
    try {
      checkpointer?.close();
      connection.close();
    } finally {
      port.close();
    }
    return;
  }
  queue.push(message);
  scheduleDrain();
});
