/**
 * Change notices for cache invalidation: the writer posts `changed` with the
 * change generation (the `change_counter` row) after its own commits and
 * whenever another process committed (`PRAGMA data_version`).
 */
import { post } from "./worker-answers.js";
import { connection, prepare } from "./worker-connection.js";

let lastGeneration = -1;
let lastDataVersion = -1;

/** Posts the change generation when rows that caches depend on changed. */
export function noticeChanges(): void {
  try {
    const row = prepare("select value from change_counter where id = 1").get() as
      | { value: number }
      | undefined;
    const generation = Number(row?.value ?? 0);
    if (generation !== lastGeneration) {
      lastGeneration = generation;
      post({ event: "changed", generation });
    }
  } catch {
    // Before migrations the table does not exist yet.
  }
}

/**
 * Notices the commits of other processes (the operator CLI, another
 * instance): caches may be stale.
 *
 * @throws SQLite's error for a locked or failing database
 */
export function noticeOtherCommits(): void {
  const version = Number(connection.pragma("data_version", { simple: true }));
  if (version !== lastDataVersion) {
    lastDataVersion = version;
    noticeChanges();
  }
}
