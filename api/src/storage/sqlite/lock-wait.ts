/**
 * Waiting for another process's write lock: a write meeting it waits
 * `busyTimeoutMs` inside SQLite, then the writer retries every
 * {@link LOCK_RETRY_MS} until each request's deadline, and reports a wait
 * that lasts (`waiting`).
 */
import { failureOf, post } from "./worker-answers.js";
import { exec } from "./worker-connection.js";

/** Delay before retrying a write that met another process's lock. */
export const LOCK_RETRY_MS = 10;
/** A wait for another process's lock is reported once it lasts this long. */
const LOCK_WAIT_REPORT_MS = 1_000;

/** Since when a write waits for another process's lock (null: not waiting). */
let lockWaitSince: number | null = null;
/** Whether the current wait was reported. */
let waitReported = false;

/** Since when (Unix ms) a write waits for another process's lock; null when none waits. */
export function lockWaitStart(): number | null {
  return lockWaitSince;
}

function isBusy(error: unknown): boolean {
  return failureOf(error)?.kind === "locked";
}

/**
 * `BEGIN IMMEDIATE`: true once the write lock is taken, false while another
 * process holds it (retry later).
 *
 * @throws SQLite's error for anything but a held lock
 */
export function beginImmediate(): boolean {
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
