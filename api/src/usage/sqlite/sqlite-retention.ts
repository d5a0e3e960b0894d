import { sql } from "kysely";
import type { ReclaimSetup, RetentionDialect } from "../retention-dialect.js";
import type { RetentionRun } from "../retention-run.js";

/** `pragma auto_vacuum`'s value for INCREMENTAL. */
const INCREMENTAL = 2;

/**
 * Gives free pages back to the file system in steps (`pragma
 * incremental_vacuum`, a batch's worth or 256 pages at a time, with the
 * run's pause between steps), when the file's auto_vacuum is INCREMENTAL.
 *
 * @returns the bytes given back (0 with auto_vacuum off)
 */
async function reclaim(run: RetentionRun): Promise<number> {
  const { database } = run;
  const mode = await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(database);
  if (Number(mode.rows[0]?.auto_vacuum) !== INCREMENTAL) return 0;
  const pageSize = Number(
    (await sql<{ page_size: number }>`pragma page_size`.execute(database)).rows[0]?.page_size,
  );
  let reclaimed = 0;
  while (!run.stopped()) {
    const free = await sql<{
      freelist_count: number;
    }>`pragma freelist_count`.execute(database);
    const pages = Number(free.rows[0]?.freelist_count ?? 0);
    if (pages === 0) break;
    const step = Math.min(pages, Math.max(run.batchSize, 256));
    await sql.raw(`pragma incremental_vacuum(${step})`).execute(database);
    reclaimed += step * pageSize;
    await run.pause();
  }
  // The file itself shrinks at the next checkpoint of the write-ahead log.
  return reclaimed;
}

/**
 * Rebuilds the file with `auto_vacuum = INCREMENTAL` (a full VACUUM, which
 * takes the write lock while it runs), so retention runs shrink it: once,
 * for files made before the store set it on new files.
 */
async function setUpReclaim(location: string): Promise<ReclaimSetup> {
  // VACUUM cannot run inside the store's batched transactions: a connection of its own.
  const { default: SqliteDatabase } = await import("better-sqlite3");
  const file = new SqliteDatabase(location, { fileMustExist: true });
  let mode: number;
  try {
    file.pragma("busy_timeout = 60000");
    file.pragma("auto_vacuum = INCREMENTAL");
    file.exec("VACUUM");
    mode = Number(file.pragma("auto_vacuum", { simple: true }));
  } finally {
    file.close();
  }
  return { autoVacuum: mode === INCREMENTAL ? "incremental" : "unchanged" };
}

/**
 * Retention on SQLite: no lock of its own (a run works through the
 * store's single writer), no partitions (usage rows go by batched
 * deletes), and the file gives back the pages the run freed.
 */
export const sqliteRetention: RetentionDialect = {
  exclusively: (database, work) => work(database),
  makePartitions: async () => [],
  droppablePartitions: async () => [],
  dropPartitions: async () => undefined,
  reclaim,
  setUpReclaim,
  partitionStats: async () => undefined,
};
