/**
 * Kysely transactions on the writer: one at a time, in order, under
 * `synchronous = FULL`; their statements run as they arrive, and one left
 * idle for {@link TRANSACTION_IDLE_MS} is rolled back by the worker.
 */

import { noticeChanges } from "./change-notices.js";
import { fencedFailure, isFenced } from "./fencing.js";
import { beginImmediate } from "./lock-wait.js";
import { queue, scheduleDrain } from "./request-queue.js";
import { answerError, post } from "./worker-answers.js";
import { connection, exec, rollbackQuietly } from "./worker-connection.js";
import type { TransactionRequest } from "./worker-protocol.js";
import { runQuery } from "./worker-statements.js";
import { beforeWrite } from "./write-batch.js";
import { reportFailure, reportSuccess } from "./write-failures.js";

/** A transaction may sit idle this long before the worker rolls it back. */
const TRANSACTION_IDLE_MS = 30_000;

let openTransaction: number | null = null;
let transactionTimer: NodeJS.Timeout | undefined;
/** Transactions the worker rolled back on its own (idle too long); their late messages fail. */
const abandoned = new Set<number>();

/** The ID of the transaction open on the writer, or null. */
export function openTransactionId(): number | null {
  return openTransaction;
}

/** Forgets an abandoned transaction once a late message of it was answered. */
export function forgetAbandoned(transaction: number): void {
  abandoned.delete(transaction);
}

/** Runs the queued statements of the open transaction, up to its commit or rollback. */
export function runTransactionItems(): void {
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
export function startTransaction(request: TransactionRequest): boolean {
  if (isFenced()) {
    queue.shift();
    fencedFailure(request.id);
    abandoned.add(request.transaction);
    return true;
  }
  beforeWrite("FULL");
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
