/**
 * Durability: group commit with the log's fsync off the write path. A
 * batch that must be on disk is answered only after an `fdatasync` of the
 * write-ahead log that began after its commit.
 */
import fs from "node:fs";
import type { StorageFailureData } from "../storage-error.js";
import { post } from "./worker-answers.js";
import { isClosing, options } from "./worker-context.js";
import type { WorkerResponse } from "./worker-protocol.js";
import { reportStorageFailure } from "./write-failures.js";

/** The write-ahead log's file descriptor, opened once it exists. */
let walDescriptor: number | undefined;
/** Answers of commits not yet covered by a started sync. */
let awaitingSync: WorkerResponse[] = [];
/** Whether an fsync of the log is under way. */
let syncing = false;

/**
 * Answers the `results` of a durable batch once the write-ahead log is on
 * disk: synced on this thread when nothing else waits for the writer
 * (`queueEmpty`) and no sync is under way ({@link syncHere}), else on
 * libuv's pool ({@link syncThenPost}).
 */
export function answerWhenSynced(results: WorkerResponse[], queueEmpty: boolean): void {
  if (!syncing && awaitingSync.length === 0 && queueEmpty) syncHere(results);
  else syncThenPost(results);
}

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
  reportStorageFailure(failure);
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
    if (isClosing()) {
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

/** On close: closes the log's descriptor, unless a sync under way closes it when it ends. */
export function closeWalDescriptor(): void {
  if (walDescriptor !== undefined && !syncing) fs.closeSync(walDescriptor);
}
