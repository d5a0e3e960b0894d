import type { Database } from "../storage/store.js";
import type { RetentionReport } from "./retention-report.js";

/**
 * One retention run as its steps (ledger roll-up, archive, removal,
 * partition drops, reclaiming space) share it: where it works, what it
 * removes, what it did so far, and when to stop.
 */
export interface RetentionRun {
  /** The connection the run works on (on PostgreSQL the one holding the retention lock). */
  readonly database: Database;
  /** ISO 8601 UTC (a UTC midnight): rows created before it go. */
  readonly cutoff: string;
  /** Rows per transaction. */
  readonly batchSize: number;
  /** What the run did so far; each step adds to it. */
  readonly report: RetentionReport;
  /** The carried-forward entries made or grown (their IDs), across steps. */
  readonly months: Set<string>;
  /** True once the job is stopping: a step starts no new batch. */
  stopped(): boolean;
  /** The pause between two batches (cut short when the job stops). */
  pause(): Promise<void>;
}
