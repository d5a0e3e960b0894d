import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { USAGE_COLUMNS, type UsageRecordsTable } from "../storage/ledger-usage-row.js";
import { type UsageRecord, usageRecordOf } from "./usage-record.js";

/** `usage-YYYY-MM-DD.jsonl.gz` or `usage-YYYY-MM-DD.part-N.jsonl.gz`. */
const ARCHIVE_FILE = /^usage-(\d{4}-\d{2}-\d{2})(?:\.part-(\d+))?\.jsonl\.gz$/u;

function archiveName(day: string, part: number): string {
  return part === 0 ? `usage-${day}.jsonl.gz` : `usage-${day}.part-${part}.jsonl.gz`;
}

/**
 * Writes usage rows of one UTC day to a gzip-compressed JSON Lines file in
 * `directory` (one row per line: an object of the row's columns as stored,
 * {@link USAGE_COLUMNS} in their order),
 * atomically: to a temporary file, fsync'd, then linked to its name (which
 * never replaces a file) and the directory fsync'd. The first file of a day
 * is `usage-YYYY-MM-DD.jsonl.gz`; when it exists, `…part-1…`, `…part-2…`.
 *
 * @param day - `YYYY-MM-DD` (UTC)
 * @param pages - the rows, in pages (read as they are written)
 * @returns the file's absolute path and how many rows it holds; no file (null) for no rows
 * @throws the file system's error (the temporary file is removed)
 */
export async function writeUsageArchive(
  directory: string,
  day: string,
  pages: AsyncIterable<readonly UsageRecordsTable[]>,
): Promise<{ file: string | null; rows: number }> {
  await fs.promises.mkdir(directory, { recursive: true, mode: 0o700 });
  const temporary = path.join(
    directory,
    `.usage-${day}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  let rows = 0;
  // The replacer picks the usage columns, in their order, whatever else a page's rows carry.
  const fields = [...USAGE_COLUMNS];
  async function* lines() {
    for await (const page of pages) {
      rows += page.length;
      if (page.length > 0) yield `${page.map((row) => JSON.stringify(row, fields)).join("\n")}\n`;
    }
  }
  try {
    await pipeline(
      Readable.from(lines()),
      createGzip(),
      fs.createWriteStream(temporary, { flags: "wx", mode: 0o600 }),
    );
    if (rows === 0) {
      await fs.promises.rm(temporary, { force: true });
      return { file: null, rows };
    }
    const handle = await fs.promises.open(temporary, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    for (let part = 0; ; part += 1) {
      const file = path.join(directory, archiveName(day, part));
      try {
        // A link never replaces an existing file (rename would).
        await fs.promises.link(temporary, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw error;
      }
      await fs.promises.unlink(temporary);
      const directoryHandle = await fs.promises.open(directory, "r");
      try {
        await directoryHandle.sync();
      } finally {
        await directoryHandle.close();
      }
      return { file, rows };
    }
  } catch (error) {
    await fs.promises.rm(temporary, { force: true });
    throw error;
  }
}

/** A file system error's code in words an operator acts on. */
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exhausted",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "the path is too long",
  EIO: "an I/O error",
};

function describeFileError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words = code === undefined ? undefined : ERRNO_WORDS[code];
  if (words !== undefined) return `${words} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

/** `fs.stat` of a path, or its error (ENOENT, ENOTDIR, EACCES …). */
async function statOf(file: string): Promise<fs.Stats | NodeJS.ErrnoException> {
  try {
    return await fs.promises.stat(file);
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

/** Creates a file in `directory`, writes a byte and removes it: proves the folder takes files. */
async function probeFile(directory: string): Promise<void> {
  const probe = path.join(
    directory,
    `.archive-probe.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
  const handle = await fs.promises.open(probe, "wx", 0o600);
  try {
    await handle.writeFile("probe\n");
  } finally {
    await handle.close();
    await fs.promises.rm(probe, { force: true });
  }
}

/**
 * Checks that {@link writeUsageArchive} can write in `directory` before a
 * retention run removes anything: the path is a folder, or can be made
 * (its nearest existing ancestor is a folder that takes new entries), and
 * a probe file can be created in it and removed. With `create` (a real
 * run) a missing folder is made (mode 0700, as the archive makes it) and
 * probed; without it (a dry run) a probe folder is made and removed in the
 * nearest existing ancestor instead, so nothing is left behind.
 *
 * @param directory - an absolute path (`PERSONA_USAGE_ARCHIVE_DIR`)
 * @returns what is wrong, in words, e.g. `cannot be created: /srv/a is a
 *   file, not a folder`, or `is a file, not a folder`; undefined when the
 *   archive can be written there
 */
export async function archiveDirectoryProblem(
  directory: string,
  options: { create: boolean },
): Promise<string | undefined> {
  const found = await statOf(directory);
  if (found instanceof fs.Stats) {
    if (!found.isDirectory()) {
      return found.isFile() ? "is a file, not a folder" : "is not a folder";
    }
  } else if (found.code === "ENOENT" || found.code === "ENOTDIR") {
    // Missing, or a file stands where a parent folder should be: look up the path for what is there.
    let ancestor = path.dirname(directory);
    let stats = await statOf(ancestor);
    while (
      !(stats instanceof fs.Stats) &&
      (stats.code === "ENOENT" || stats.code === "ENOTDIR") &&
      path.dirname(ancestor) !== ancestor
    ) {
      ancestor = path.dirname(ancestor);
      stats = await statOf(ancestor);
    }
    if (!(stats instanceof fs.Stats)) {
      return `cannot be created: ${ancestor} cannot be read: ${describeFileError(stats)}`;
    }
    if (!stats.isDirectory()) return `cannot be created: ${ancestor} is a file, not a folder`;
    try {
      if (!options.create) {
        await fs.promises.rmdir(await fs.promises.mkdtemp(path.join(ancestor, ".archive-probe-")));
        return undefined;
      }
      await fs.promises.mkdir(directory, { recursive: true, mode: 0o700 });
    } catch (error) {
      return `cannot be created in ${ancestor}: ${describeFileError(error)}`;
    }
  } else {
    return `cannot be read: ${describeFileError(found)}`;
  }
  try {
    await probeFile(directory);
  } catch (error) {
    return `cannot be written: ${describeFileError(error)}`;
  }
  return undefined;
}

/** The archive files of a directory, oldest day first (parts in order). */
export function usageArchiveFiles(directory: string): string[] {
  return fs
    .readdirSync(directory)
    .map((name) => ({ name, match: ARCHIVE_FILE.exec(name) }))
    .filter((entry) => entry.match !== null)
    .sort(
      (a, b) =>
        (a.match?.[1] ?? "").localeCompare(b.match?.[1] ?? "") ||
        Number(a.match?.[2] ?? 0) - Number(b.match?.[2] ?? 0),
    )
    .map((entry) => path.join(directory, entry.name));
}

/**
 * Reads every usage row archived in `directory` (only the files of the
 * days from `from` to `to`, `YYYY-MM-DD`, both included, when given). A
 * row written twice (a run stopped between archiving and removing, then
 * archived again) is read once: a day's rows are only in that day's files,
 * so the IDs of one day at a time are remembered.
 *
 * @throws when the directory cannot be read, or a file is not gzip'd JSON Lines
 */
export async function* readUsageArchive(
  directory: string,
  days: { from?: string; to?: string } = {},
): AsyncGenerator<UsageRecord> {
  let seen = new Set<string>();
  let seenDay = "";
  for (const file of usageArchiveFiles(directory)) {
    const day = ARCHIVE_FILE.exec(path.basename(file))?.[1] ?? "";
    if (days.from !== undefined && day < days.from.slice(0, 10)) continue;
    if (days.to !== undefined && day > days.to) continue;
    if (day !== seenDay) {
      seen = new Set();
      seenDay = day;
    }
    const input = fs.createReadStream(file).pipe(createGunzip());
    const reader = readline.createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    let line = 0;
    for await (const text of reader) {
      line += 1;
      if (text.trim() === "") continue;
      let row: UsageRecordsTable;
      try {
        row = JSON.parse(text) as UsageRecordsTable;
      } catch {
        throw new Error(`${file}:${line}: not a JSON line`);
      }
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      yield usageRecordOf(row);
    }
  }
}
