/**
 * Checkpoints of the write-ahead log, kept off the writer's commits: a
 * checkpoint copies the log into the database file and fsyncs it, 1–4 ms
 * (27 ms for a large log) that SQLite's automatic checkpoint spends inside
 * the COMMIT that crosses 1 000 pages — with ~13 pages a commit, one commit
 * in ~75, and every request queued behind it. The reader instead runs a
 * passive checkpoint every `checkpointIntervalMs` (250 ms) on a connection
 * of its own, beside the writer's commits (a passive checkpoint never takes
 * the write lock; a round repeats it, up to three times, while commits
 * landed during it); the writer's automatic checkpoint stays only as a
 * backstop (worker-connection.ts), for a log the passive ones never finish
 * because commits keep landing during them. The writer truncates the log
 * on request (`checkpoint`) and when it grew past its limit
 * (maintenance.ts).
 */
import fs from "node:fs";
import SqliteDatabase from "better-sqlite3";
import { connection } from "./worker-connection.js";
import { isClosing, isWriter, options } from "./worker-context.js";

/** A truncating checkpoint on this worker's connection; the log's size after it. */
export function checkpoint(): { walBytes: number } {
  connection.pragma("wal_checkpoint(TRUNCATE)");
  return { walBytes: walBytes() };
}

/** The write-ahead log's size in bytes (0 when there is none). */
export function walBytes(): number {
  try {
    return fs.statSync(`${options.file}-wal`).size;
  } catch {
    return 0;
  }
}

let checkpointer: SqliteDatabase.Database | undefined;

/**
 * The reader's passive checkpoints (see the top of this file), on a
 * read-write connection of their own: they copy the log into the database
 * file beside the writer's commits, without its lock. A checkpoint that
 * fails (the disk full, another process checkpointing) is tried again at
 * the next round; the writer's own checkpoints cover what these cannot.
 * Nothing on the writer, or with `checkpointIntervalMs` 0.
 */
export function startPassiveCheckpoints(): void {
  if (isWriter || options.checkpointIntervalMs <= 0) return;
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
      if (isClosing()) return;
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

/** Closes the passive checkpoints' connection, if open. */
export function closePassiveCheckpoints(): void {
  checkpointer?.close();
}
