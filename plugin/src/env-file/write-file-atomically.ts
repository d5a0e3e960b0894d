import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Options of {@link writeFileAtomically}. */
export interface AtomicWriteOptions {
  /** Permission bits of the written file, e.g. `0o600`. */
  mode: number;
}

/** Temporary files being written, removed by {@link removePendingFiles} if the process is stopped. */
const pending = new Set<string>();

/**
 * Writes a file so that it is either fully replaced or untouched: the text
 * goes to a temporary file in the same folder (created exclusively, with
 * `mode` from the start, so the content is never readable by others),
 * which is flushed to disk and renamed over the target. A failure removes
 * the temporary file. The whole write is synchronous, so a signal (Ctrl-C)
 * is handled before it starts or after it ends, never halfway through.
 *
 * @param file - absolute path of the file to write; its folder must exist
 * @param content - the whole new text
 * @throws the file system's error (e.g. `EACCES`, `ENOENT` for a missing folder)
 *
 * @example
 * writeFileAtomically("/work/app/.env", "SERVICE_API_KEY=…\n", { mode: 0o600 });
 */
export function writeFileAtomically(
  file: string,
  content: string,
  options: AtomicWriteOptions,
): void {
  const folder = path.dirname(file);
  const temporary = path.join(
    folder,
    `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  pending.add(temporary);
  try {
    const descriptor = fs.openSync(temporary, "wx", options.mode);
    try {
      fs.writeFileSync(descriptor, content, "utf8");
      // The umask may have narrowed the mode at creation; set it exactly.
      fs.fchmodSync(descriptor, options.mode);
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, file);
    pending.delete(temporary);
    syncFolder(folder);
  } finally {
    if (pending.delete(temporary)) fs.rmSync(temporary, { force: true });
  }
}

/** Flushes the folder entry of a rename; not every platform allows opening a folder, so failures are ignored. */
function syncFolder(folder: string): void {
  try {
    const descriptor = fs.openSync(folder, "r");
    try {
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
  } catch {
    // Best effort: the rename itself is already atomic.
  }
}

/**
 * Removes temporary files of writes that were interrupted (called from a
 * signal handler before exiting), so no partial file is left behind.
 */
export function removePendingFiles(): void {
  for (const temporary of pending) fs.rmSync(temporary, { force: true });
  pending.clear();
}
