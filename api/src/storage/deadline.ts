/**
 * A point in time (Unix milliseconds) by which a storage call must have
 * answered. Every wait on the database or Redis has one; past it the call fails with
 * `StorageUnavailableError` `timeout` (or `locked` while another process
 * holds the SQLite write lock) and the request gets 503.
 */
export type Deadline = number;

/** The deadline `milliseconds` from now. */
export function deadlineIn(milliseconds: number, now = Date.now()): Deadline {
  return now + milliseconds;
}

/** Milliseconds left before a deadline (0 when it has passed). */
export function remainingMs(deadline: Deadline, now = Date.now()): number {
  return Math.max(0, deadline - now);
}
