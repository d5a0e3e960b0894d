/**
 * The storage worker's one better-sqlite3 connection, opened when the
 * worker starts, and its statements: prepared once per SQL text and
 * counted (statements per request).
 */
import fs from "node:fs";
import SqliteDatabase, { type Statement } from "better-sqlite3";
import { isWriter, options } from "./worker-context.js";

/**
 * The writer's automatic checkpoint (pages of log), a backstop only: the
 * reader's passive checkpoints keep the log under it. A log that reaches it
 * (8 MB of 4 KiB pages; bounded, so a small disk is not filled by the log)
 * is checkpointed by the commit that crosses it — only the pages the passive
 * checkpoints have not copied yet — and the next write starts the log over.
 */
const WRITER_AUTOCHECKPOINT_PAGES = 2_000;

/** The connection: read-write for the writer, read-only for the reader. */
export const connection: SqliteDatabase.Database = new SqliteDatabase(options.file, {
  readonly: !isWriter,
  fileMustExist: !isWriter,
});
connection.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
if (isWriter) {
  // A new file frees pages back to the file system on `incremental_vacuum`
  // (usage retention); only possible before the first table (an existing
  // file changes mode with `persona-admin storage vacuum`).
  if (Number(connection.pragma("page_count", { simple: true })) === 0) {
    connection.pragma("auto_vacuum = INCREMENTAL");
  }
  connection.pragma("journal_mode = WAL");
  connection.pragma("foreign_keys = ON");
  connection.pragma(`journal_size_limit = ${options.walLimitBytes}`);
  connection.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
}
/** The file opened, as it was then (fencing.ts compares the file at the path with it). */
export const openedFile = fs.statSync(options.file);

/**
 * Statements this worker has executed (statements per request):
 * each run, get, all or iterate of a prepared statement and each `exec`;
 * pragmas are not counted. Sent with every answer (`statements`).
 */
let executed = 0;

/** How many statements this worker has executed so far (see {@link executed}). */
export function executedStatements(): number {
  return executed;
}

/** The methods of a prepared statement that execute it. */
const EXECUTING_METHODS = ["run", "get", "all", "iterate"] as const;

/** Makes a prepared statement count its executions in {@link executed}. */
function counted(statement: Statement): Statement {
  for (const method of EXECUTING_METHODS) {
    const original = statement[method] as (...parameters: unknown[]) => unknown;
    Object.assign(statement, {
      [method]: (...parameters: unknown[]) => {
        executed += 1;
        return original.apply(statement, parameters);
      },
    });
  }
  return statement;
}

/** `connection.exec`, counted in {@link executed}. */
export function exec(sql: string): void {
  executed += 1;
  connection.exec(sql);
}

/** Statements prepared once per SQL text (a few dozen exist). */
const statements = new Map<string, Statement>();

/** The prepared (and counted) statement of `sql`; throws SQLite's error for SQL that does not prepare. */
export function prepare(sql: string): Statement {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = counted(connection.prepare(sql));
    if (statements.size >= 512) {
      const oldest = statements.keys().next().value;
      if (oldest !== undefined) statements.delete(oldest);
    }
    statements.set(sql, statement);
  }
  return statement;
}

/** Rolls back the transaction still open, if any; never throws. */
export function rollbackQuietly(): void {
  // SQLite rolls back by itself on some errors (full, I/O); only roll back what is still open.
  if (connection.inTransaction) {
    try {
      exec("ROLLBACK");
    } catch {
      // The connection reports the real error on the next statement.
    }
  }
}

let synchronous: "FULL" | "NORMAL" | undefined;

/** Sets `PRAGMA synchronous` when it differs from the level last set. */
export function setSynchronous(level: "FULL" | "NORMAL"): void {
  if (synchronous === level) return;
  connection.pragma(`synchronous = ${level}`);
  synchronous = level;
}
