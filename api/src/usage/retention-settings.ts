import type { Config } from "../config/config.js";

/** What retention keeps and how it removes the rest (config/retention-config.ts). */
export interface RetentionSettings {
  /** Days kept; null: retention is off, everything is kept. */
  days: number | null;
  /** Where removed usage rows are archived first; absent: not archived. */
  archiveDir?: string;
  /** Rows per transaction. */
  batchSize: number;
  /** Milliseconds between two batches. */
  pauseMs: number;
  /** Milliseconds between two runs of the background job. */
  intervalMs: number;
}

/** The retention settings of a configuration. */
export function retentionSettingsOf(
  config: Pick<
    Config,
    | "PERSONA_USAGE_RETENTION_DAYS"
    | "PERSONA_USAGE_ARCHIVE_DIR"
    | "PERSONA_RETENTION_BATCH_SIZE"
    | "PERSONA_RETENTION_PAUSE_MS"
    | "PERSONA_RETENTION_INTERVAL_MINUTES"
  >,
): RetentionSettings {
  return {
    days: config.PERSONA_USAGE_RETENTION_DAYS,
    ...(config.PERSONA_USAGE_ARCHIVE_DIR === undefined
      ? {}
      : { archiveDir: config.PERSONA_USAGE_ARCHIVE_DIR }),
    batchSize: config.PERSONA_RETENTION_BATCH_SIZE,
    pauseMs: config.PERSONA_RETENTION_PAUSE_MS,
    intervalMs: config.PERSONA_RETENTION_INTERVAL_MINUTES * 60_000,
  };
}

/**
 * The cutoff of a run: the UTC midnight `days` days before `now`'s UTC day
 * starts. Rows created before it are removed; a day is so removed whole.
 *
 * @returns ISO 8601 UTC, e.g. `2026-08-28T00:00:00.000Z`
 */
export function retentionCutoff(days: number, now: Date = new Date()): string {
  return new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - days),
  ).toISOString();
}
