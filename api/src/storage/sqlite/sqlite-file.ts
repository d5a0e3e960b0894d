import fs from "node:fs";
import path from "node:path";
import { DATABASE_IDENTITY_VARIABLE, readEnvFile } from "../env-file.js";
import { StorageStartupError } from "../startup-error.js";

/** What {@link prepareSqliteFile} checks against. */
export interface SqliteFileOptions {
  /**
   * The env file the demo seed writes (`PERSONA_ENV_FILE`): a key of this
   * service in it, written for this file (`SERVICE_DATABASE`), shows a
   * database existed here.
   */
  envFile?: string;
  /** Start with a new, empty database even where signs show one existed (`PERSONA_NEW_DATABASE`). */
  allowNew: boolean;
}

/**
 * Where a database lived by default, as seen from the env file's folder
 * (`PERSONA_DATABASE_URL`'s default beside `PERSONA_ENV_FILE`'s): an env
 * file written before it named its database is taken to be about this one.
 */
const DEFAULT_DATABASE_BESIDE_ENV_FILE = path.join("data", "persona-reply.sqlite");

/**
 * Whether the env file shows that a database existed at `file`: it holds a
 * key of this service, and the database that key was written for
 * (`SERVICE_DATABASE`, see {@link DATABASE_IDENTITY_VARIABLE}) is `file`.
 * A file written before that line existed names no database: it is taken to
 * be about the default location beside it (`<its folder>/data/persona-reply.sqlite`)
 * and nothing else.
 */
function envFileShowsDatabase(file: string, envFile: string): boolean {
  let values: Record<string, string>;
  try {
    values = readEnvFile(envFile);
  } catch {
    return false; // An unreadable env file is no evidence either way.
  }
  if (!values.SERVICE_API_KEY?.startsWith("prk_")) return false;
  const named = values[DATABASE_IDENTITY_VARIABLE];
  const absoluteEnvFile = path.resolve(envFile);
  const database =
    named === undefined || named === ""
      ? path.join(path.dirname(absoluteEnvFile), DEFAULT_DATABASE_BESIDE_ENV_FILE)
      : path.resolve(path.dirname(absoluteEnvFile), named);
  return database === path.resolve(file);
}

/** Signs that a database existed at `file` before: leftover log files, an env file holding its key. */
function tracesOfOldDatabase(file: string, envFile: string | undefined): string[] {
  const traces: string[] = [];
  for (const suffix of ["-wal", "-shm", "-journal"]) {
    if (fs.existsSync(file + suffix)) traces.push(`a leftover ${path.basename(file + suffix)}`);
  }
  if (envFile !== undefined && envFileShowsDatabase(file, envFile)) {
    traces.push(`${envFile}, which holds an API key of this service written for this file`);
  }
  return traces;
}

/**
 * Checks the SQLite file before it is opened, and makes what it creates owner-only: the folder (when
 * created here) 0700, the file 0600 — it holds key hashes and e-mail
 * addresses.
 *
 * - An existing file of zero bytes is refused (it is not a database; SQLite
 *   would take it for a new one and the demo seed would re-seed it).
 * - A missing file where a database evidently existed (leftover `-wal` /
 *   `-shm` files, an env file holding a key of this service written for this
 *   very file, see {@link envFileShowsDatabase}) is refused
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
