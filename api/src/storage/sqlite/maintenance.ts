/**
 * The writer's maintenance rounds, every `maintenanceIntervalMs` (50 ms):
 * it notices commits of other processes for cache invalidation; every
 * fourth round it compares the open file with the file at the path
 * (fencing.ts) and reports the write-ahead log's size; every 200th (10 s),
 * when the log has grown past `walLimitBytes` (behind a long reader), it
 * runs a truncating checkpoint so the log shrinks back. While the disk is
 * full it tries to make room every round (disk-full.ts).
 */
import { noticeChanges, noticeOtherCommits } from "./change-notices.js";
import { checkpoint, walBytes } from "./checkpoints.js";
import { makeRoom } from "./disk-full.js";
import { checkFileIdentity } from "./fencing.js";
import { openTransactionId } from "./transactions.js";
import { post } from "./worker-answers.js";
import { isClosing, isWriter, options } from "./worker-context.js";

/** File identity and log size are checked every 4th round; a log over its limit is truncated every 200th. */
const IDENTITY_EVERY_TICKS = 4;
const CHECKPOINT_EVERY_TICKS = 200;

let ticks = 0;

/** Starts the writer's maintenance rounds and posts the current change generation; nothing on the reader. */
export function startMaintenance(): void {
  if (!isWriter) return;
  const timer = setInterval(() => {
    if (isClosing()) return;
    ticks += 1;
    // A full disk is retried without waiting for a request: the space the log holds comes back first.
    if (openTransactionId() === null) makeRoom(Date.now());
    try {
      // Another process committed (the operator CLI, another instance): caches may be stale.
      noticeOtherCommits();
      // Only a log grown past its limit (behind a long reader): truncating a
      // log in use costs tens of ms here and makes its next syncs grow the file.
      if (
        ticks % CHECKPOINT_EVERY_TICKS === 0 &&
        openTransactionId() === null &&
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
