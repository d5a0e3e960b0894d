/**
 * Storage failures of writes, as events to the main thread: each failure
 * (`failure`), and the first success after one (`recovered`).
 */
import type { StorageFailureData } from "../storage-error.js";
import { setDiskFull } from "./disk-full.js";
import { failureOf, post } from "./worker-answers.js";

/** Whether the last write failed for a storage reason (reported recovery follows). */
let failing = false;

/** Reports a storage failure of a write; the next success reports the recovery. */
export function reportStorageFailure(failure: StorageFailureData): void {
  failing = true;
  post({ event: "failure", failure });
}

/** Reports `error` when it is a storage failure (a full disk is noted for {@link setDiskFull}). */
export function reportFailure(error: unknown): void {
  const failure = failureOf(error);
  if (failure !== undefined) {
    if (failure.kind === "full") setDiskFull(true);
    reportStorageFailure(failure);
  }
}

/** Notes a write that succeeded: the disk has room, and a failure reported before is over. */
export function reportSuccess(): void {
  setDiskFull(false);
  if (failing) {
    failing = false;
    post({ event: "recovered" });
  }
}
