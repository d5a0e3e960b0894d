/**
 * The storage worker's queue of requests, in arrival order, and when it is
 * worked through next: the drain (drain.ts) is scheduled, never called
 * directly, so requests that arrive together are drained together.
 */
import type { WorkerRequest } from "./worker-protocol.js";

/** The requests not yet answered or started, oldest first. */
export const queue: WorkerRequest[] = [];

let drainScheduled = false;
let drain: () => void = () => {};

/** Sets what a scheduled drain runs (sqlite-worker.ts: drain.ts's `drain`). */
export function onDrain(run: () => void): void {
  drain = run;
}

/** Schedules a drain: on the next turn of the event loop, or after `delayMs`; once while one is pending. */
export function scheduleDrain(delayMs = 0): void {
  if (drainScheduled) return;
  drainScheduled = true;
  const run = () => {
    drainScheduled = false;
    drain();
  };
  if (delayMs === 0) setImmediate(run);
  else setTimeout(run, delayMs);
}
