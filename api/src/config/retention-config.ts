import path from "node:path";
import { z } from "zod";

/**
 * Configuration of usage retention (usage/usage-retention.ts), spread into the server configuration schema.
 */
export const retentionConfigShape = {
  /**
   * Days raw usage rows, ledger entries and x402 payment rows are kept
   * (default 90). Older ones are removed by a background job (daily totals
   * are kept for ever; ledger entries are rolled into one `carried_forward`
   * entry per account and month). While it is set, the x402 gate refuses an
   * authorization valid for longer than this (a payment's row is what
   * refuses it a second time). `off` or `0` keeps everything for ever (no
   * job runs). Becomes `null` when off.
   */
  PERSONA_USAGE_RETENTION_DAYS: z
    .string()
    .trim()
    .toLowerCase()
    .default("90")
    .refine((text) => text === "off" || /^\d{1,5}$/u.test(text), {
      error: 'must be a whole number of days (0 or "off" keeps everything)',
    })
    .transform((text) => (text === "off" || Number(text) === 0 ? null : Number(text))),
  /**
   * A directory where usage rows are written before retention removes them,
   * one gzip-compressed JSON Lines file per UTC day (`usage-YYYY-MM-DD.jsonl.gz`,
   * `…part-N…` for later parts). Unset: removed rows are not archived.
   * Resolved to an absolute path. Made when missing; each run first checks
   * that it is a folder a file can be written in, and changes nothing when
   * it is not.
   */
  PERSONA_USAGE_ARCHIVE_DIR: z
    .string()
    .min(1)
    .transform((value) => path.resolve(value))
    .optional(),
  /** Minutes between two retention runs of an instance (the first runs a minute after start). */
  PERSONA_RETENTION_INTERVAL_MINUTES: z.coerce.number().int().positive().max(10_080).default(60),
  /** Rows removed per transaction (short transactions, so the request path hardly waits). */
  PERSONA_RETENTION_BATCH_SIZE: z.coerce.number().int().positive().max(100_000).default(1000),
  /** Milliseconds retention pauses between two batches. */
  PERSONA_RETENTION_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(100),
};
