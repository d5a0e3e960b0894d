import fs from "node:fs";
import path from "node:path";
import { StorageStartupError } from "../startup-error.js";

/** What {@link prepareSqliteFile} checks against. */
export interface SqliteFileOptions {
  /** The env file the demo seed writes (`PERSONA_ENV_FILE`): a key of this service in it shows a database existed. */
  envFile?: string;
  /** Start with a new, empty database even where signs show one existed (`PERSONA_NEW_DATABASE`). */
  allowNew: boolean;
}

const SERVICE_KEY_LINE = /^\s*SERVICE_API_KEY\s*=\s*["']?prk_/mu;

/** Signs that a database existed at `file` before: leftover log files, an env file holding a key. */
function tracesOfOldDatabase(file: string, envFile: string | undefined): string[] {
  const traces: string[] = [];
  for (const suffix of ["-wal", "-shm", "-journal"]) {
    if (fs.existsSync(file + suffix)) traces.push(`a leftover ${path.basename(file + suffix)}`);
  }
  if (envFile !== undefined && fs.existsSync(envFile)) {
    try {
      if (SERVICE_KEY_LINE.test(fs.readFileSync(envFile, "utf8"))) {
        traces.push(`${envFile}, which holds an API key of this service`);
      }
    } catch {
      // An unreadable env file is no evidence either way.
    }
  }
  return traces;
}

/**
 * Checks the SQLite file before it is opened (issue 21 "Start-up
 * checks"), and makes what it creates owner-only: the folder (when
 * created here) 0700, the file 0600 — it holds key hashes and e-mail
 * addresses.
 *
 * - An existing file of zero bytes is refused (it is not a database; SQLite
 *   would take it for a new one and the demo seed would re-seed it).
 * - A missing file where a database evidently existed (leftover `-wal` /
 *   `-shm` files, an env file holding a key of this service) is refused
 *   unless `allowNew`: the data was lost, and a silently new database would
 *   hide that. With `allowNew`, leftover log files are moved aside so
 *   SQLite never replays them into the new file.
 *
 * @returns whether the file was created (a new database)
 * @throws {StorageStartupError} saying what was found and what to do
 */
export function prepareSqliteFile(file: string, options: SqliteFileOptions): boolean {
  if (fs.existsSync(file)) {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new StorageStartupError(`${file} is not a file`);
    if (stat.size === 0) {
      throw new StorageStartupError(
        `${file} is empty (0 bytes), so it is not a database: restore it from a backup (docs/OPERATIONS.md "Backups"), or delete it to start with a new database`,
      );
    }
    fs.chmodSync(file, 0o600);
    return false;
  }
  const traces = tracesOfOldDatabase(file, options.envFile);
  if (traces.length > 0 && !options.allowNew) {
    throw new StorageStartupError(
      `the database file ${file} does not exist, but ${traces.join(" and ")} show${traces.length === 1 ? "s" : ""} that one existed: restore it from a backup (docs/OPERATIONS.md "Backups"), or set PERSONA_NEW_DATABASE=true to start with a new, empty database`,
    );
  }
  const directory = path.dirname(file);
  if (!fs.existsSync(directory)) fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const aside = `.orphaned-${Date.now()}`;
  for (const suffix of ["-wal", "-shm", "-journal"]) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, file + suffix + aside);
  }
  fs.writeFileSync(file, "", { mode: 0o600, flag: "wx" });
  return true;
}
