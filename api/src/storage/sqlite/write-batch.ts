/**
 * Group commit: writes that arrive together run in one
 * `BEGIN IMMEDIATE … COMMIT`, each under its own savepoint so one failing
 * statement does not undo the others, answered only after the commit — and,
 * whenever the batch holds anything but admissions and releases, only after
 * an fsync of the write-ahead log (wal-sync.ts), so a settled request is on
 * disk before its 200 leaves.
 */
import { noticeChanges } from "./change-notices.js";
import { makeRoom } from "./disk-full.js";
import { fencedFailure, isFenced } from "./fencing.js";
import { beginImmediate } from "./lock-wait.js";
import { queue } from "./request-queue.js";
import { answerWhenSynced } from "./wal-sync.js";
import { answerError, errorAnswer, failureOf, post } from "./worker-answers.js";
import { connection, exec, rollbackQuietly, setSynchronous } from "./worker-connection.js";
import type { LedgerRequest, WorkerRequest, WorkerResponse } from "./worker-protocol.js";
import { runLedger, runProbe, runQuery } from "./worker-statements.js";
import { reportFailure, reportSuccess } from "./write-failures.js";

/**
 * Whether a write must be on disk before it is answered: everything but
 * admissions and releases, whose loss in a power failure loses no money
 * and no record (a reservation lost with its request; the sweeper and the
 * restart release the rest).
 */
export function isDurable(request: WorkerRequest): boolean {
  return request.kind !== "admit" && request.kind !== "release";
}

/**
 * What comes before `BEGIN IMMEDIATE` of a write: the `synchronous` level
 * (NORMAL for a batch, whose fsync follows on its own; FULL for a Kysely
 * transaction), and room on a full disk.
 */
export function beforeWrite(level: "FULL" | "NORMAL"): void {
  setSynchronous(level);
  makeRoom(Date.now());
}

/** Runs a group of writes in one transaction; false when the lock is held elsewhere. */
export function runBatch(batch: WorkerRequest[]): boolean {
  if (isFenced()) {
    for (const request of batch) fencedFailure(request.id);
    return true;
  }
  // Every batch commits without an fsync; a durable one is answered only after
  // the write-ahead log has been synced (wal-sync.ts), without holding the
  // write lock or this thread meanwhile.
  beforeWrite("NORMAL");
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
      results.push(errorAnswer(request.id, error));
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
  else answerWhenSynced(results, queue.length === 0);
  return true;
}
