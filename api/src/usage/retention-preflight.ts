import { deadlineIn } from "../storage/deadline.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import type { Store } from "../storage/store.js";
import { archiveDirectoryProblem } from "./usage-archive.js";

/** The `storage_probes` row a retention preflight upserts (the store's own read-and-write probe). */
const PREFLIGHT_PROBE_ID = "retention-preflight";

/**
 * A retention run refused before it changed anything: what it needs is
 * missing. Its message says so and lists {@link problems}, each naming the
 * setting, its value and what is wrong.
 */
export class RetentionPreflightError extends Error {
  override readonly name = "RetentionPreflightError";
  constructor(
    /** What would make the run fail, e.g. `PERSONA_USAGE_ARCHIVE_DIR=/srv/a/b: cannot be created: /srv/a is a file, not a folder`. */
    readonly problems: readonly string[],
  ) {
    super(`retention did not run, nothing was changed: ${problems.join("; ")}`);
  }
}

/**
 * Checks what a retention run needs before it changes anything (the real
 * run and `--dry-run` alike): the database takes a read and a write within
 * the store's deadline (`Store.probe`: a schema table read, a probe row
 * upserted), and, when `archiveDir` is set, the archive can be written
 * there ({@link archiveDirectoryProblem}; with `create`, a missing folder
 * is made).
 *
 * @param archiveDir - `PERSONA_USAGE_ARCHIVE_DIR` (absolute), or undefined when not archiving
 * @returns the problems, in the words of {@link RetentionPreflightError.problems}; empty when the run can go
 */
export async function retentionProblems(
  store: Pick<Store, "probe" | "timeoutMs" | "location">,
  archiveDir: string | undefined,
  options: { create: boolean },
): Promise<string[]> {
  const problems: string[] = [];
  try {
    await store.probe(PREFLIGHT_PROBE_ID, deadlineIn(store.timeoutMs));
  } catch (error) {
    const reason =
      error instanceof StorageUnavailableError
        ? `${error.message} (${error.detail})`
        : error instanceof Error
          ? error.message
          : String(error);
    problems.push(
      `the database (PERSONA_DATABASE_URL=${store.location}) cannot be written: ${reason}`,
    );
  }
  if (archiveDir !== undefined) {
    const problem = await archiveDirectoryProblem(archiveDir, options);
    if (problem !== undefined) problems.push(`PERSONA_USAGE_ARCHIVE_DIR=${archiveDir}: ${problem}`);
  }
  return problems;
}
