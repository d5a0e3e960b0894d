/**
 * Working through the queue (request-queue.ts): requests past their
 * deadline are answered without running; with a transaction open, only its
 * statements run; otherwise plain reads are answered at once, the writes up
 * to the next `begin` are group-committed (admissions and releases first,
 * without an fsync), then checkpoints run and the next transaction starts.
 * A write meeting another process's lock is retried every
 * {@link LOCK_RETRY_MS} until its deadline.
 */
import { startBackup } from "./backup.js";
import { checkpoint } from "./checkpoints.js";
import { LOCK_RETRY_MS, lockWaitStart } from "./lock-wait.js";
import { queue, scheduleDrain } from "./request-queue.js";
import {
  forgetAbandoned,
  openTransactionId,
  runTransactionItems,
  startTransaction,
} from "./transactions.js";
import { answerError, post } from "./worker-answers.js";
import { isClosing, isWriter, options } from "./worker-context.js";
import type { WorkerRequest } from "./worker-protocol.js";
import { isPlainRead, runQuery } from "./worker-statements.js";
import { isDurable, runBatch } from "./write-batch.js";

/** Answers requests whose deadline passed while they waited; they never run. */
function expire(now: number): void {
  const openTransaction = openTransactionId();
  const lockWaitSince = lockWaitStart();
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

/** Works through the queue once (see the top of this file); scheduled by request-queue.ts. */
export function drain(): void {
  if (isClosing()) return;
  expire(Date.now());
  if (openTransactionId() !== null) {
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
      forgetAbandoned(request.transaction);
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
