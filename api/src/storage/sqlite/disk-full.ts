/**
 * A full disk: while the last write failed for want of space, the writer
 * empties the write-ahead log before every write and every maintenance
 * round ({@link makeRoom}), so the service recovers by itself within a
 * second of space coming back.
 */
import { connection } from "./worker-connection.js";

/** While the disk is full, the log is checkpointed to make room at most this often. */
const ROOM_ATTEMPT_MS = 250;

/** Whether the last write failed because the disk is full (then the log is emptied before writing). */
let diskFull = false;
/** When the log was last checkpointed to make room on a full disk (Unix ms). */
let lastRoomAttempt = 0;

/** Records whether the disk is full: true after a `full` failure, false after a write succeeded. */
export function setDiskFull(full: boolean): void {
  diskFull = full;
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
export function makeRoom(now: number): void {
  if (!diskFull || connection.inTransaction || now - lastRoomAttempt < ROOM_ATTEMPT_MS) return;
  lastRoomAttempt = now;
  try {
    const [result] = connection.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
    if (result?.busy === 0) diskFull = false;
  } catch {
    // Still no room (or a reader in the way): the write that follows says so.
  }
}
