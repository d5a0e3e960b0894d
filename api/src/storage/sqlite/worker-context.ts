/**
 * What every part of the SQLite storage worker (sqlite-worker.ts) shares:
 * the port to the main thread, the options it was started with, and
 * whether it is closing.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import type { WorkerOptions } from "./worker-protocol.js";

const parent = parentPort;
if (parent === null) throw new Error("sqlite-worker.ts runs only as a worker thread");

/** The port to the main thread (sqlite-client.ts). */
export const port: MessagePort = parent;

/** The options the main thread started this worker with. */
export const options = workerData as WorkerOptions;

/** Whether this worker is the `writer` (every write) rather than the `reader` (plain reads). */
export const isWriter = options.role === "writer";

let closing = false;

/** Whether the main thread asked this worker to close: timers and syncs stop. */
export function isClosing(): boolean {
  return closing;
}

/** Marks the worker as closing (the `close` message); nothing new starts after it. */
export function markClosing(): void {
  closing = true;
}
