/**
 * The SQLite storage worker: a thread that owns one better-sqlite3
 * connection, so no wait on the database — a lock another process holds,
 * an fsync, a long report — ever blocks the event loop that serves HTTP.
 * The main thread talks to it through sqlite-client.ts; this file is the
 * worker's entry (the script sqlite-client.ts starts, from dist/).
 *
 * The `writer` runs every write: writes that arrive together are
 * group-committed (write-batch.ts), a durable batch answered only after an
 * fsync of the write-ahead log (wal-sync.ts); a write meeting another
 * process's lock is retried until its deadline (lock-wait.ts); Kysely
 * transactions run alone, in order (transactions.ts). The `reader` answers
 * plain reads on its own connection (WAL readers never wait for the
 * writer) and runs the passive checkpoints (checkpoints.ts). The writer's
 * maintenance rounds (maintenance.ts) notice other processes' commits,
 * fence writes when the file is replaced (fencing.ts) and make room on a
 * full disk (disk-full.ts).
 *
 * Opening the connection (worker-connection.ts) happens on import; then:
 */
import { closePassiveCheckpoints, startPassiveCheckpoints } from "./checkpoints.js";
import { drain } from "./drain.js";
import { startMaintenance } from "./maintenance.js";
import { onDrain, queue, scheduleDrain } from "./request-queue.js";
import { closeWalDescriptor } from "./wal-sync.js";
import { connection, rollbackQuietly } from "./worker-connection.js";
import { markClosing, port } from "./worker-context.js";
import type { WorkerRequest } from "./worker-protocol.js";

// 1. The queue is worked through by the drain.
onDrain(drain);

// 2. The writer's maintenance rounds, or the reader's passive checkpoints.
startMaintenance();
startPassiveCheckpoints();

// 3. Requests from the main thread join the queue; `close` ends the worker.
port.on("message", (message: WorkerRequest | { kind: "close" }) => {
  if (message.kind === "close") {
    markClosing();
    rollbackQuietly();
    // A sync under way closes the log's descriptor when it ends.
    closeWalDescriptor();
    try {
      closePassiveCheckpoints();
      connection.close();
    } finally {
      port.close();
    }
    return;
  }
  queue.push(message);
  scheduleDrain();
});
