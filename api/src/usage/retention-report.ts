/** What the next retention run would remove. */
export interface RetentionPreview {
  /** Null when retention is off. */
  days: number | null;
  cutoff: string | null;
  /** Usage rows older than the cutoff. */
  usageRows: number;
  /** Ledger entries older than the cutoff (carried-forward ones aside), to be rolled up. */
  ledgerEntries: number;
  archiveDir: string | null;
  /** x402 payment rows older than the cutoff. */
  paymentRows: number;
  /**
   * PostgreSQL: the monthly partitions of `usage_records` wholly older than
   * the cutoff, dropped whole (unless a ledger entry still refers to one of
   * their rows); empty on SQLite.
   */
  partitions: string[];
}

/** What a retention run did. */
export interface RetentionReport {
  cutoff: string | null;
  /** `off`: retention is off; `busy`: another run (another instance) holds the work. */
  skipped?: "off" | "busy";
  usageRowsRemoved: number;
  ledgerEntriesRolledUp: number;
  /** x402 payment rows removed (older than the cutoff). */
  paymentRowsRemoved: number;
  /**
   * Kept online evaluation samples removed because their own retention
   * (`persona sample --keep-content --content-days`) passed; absent when none.
   */
  onlineSamplesRemoved?: number;
  /**
   * The OAuth sweep (oauth/oauth-sweep.ts): authorization codes expired or
   * used, and access and refresh tokens expired, more than a day ago;
   * absent when it removed none.
   */
  oauthCodesRemoved?: number;
  /** See {@link RetentionReport.oauthCodesRemoved}: the tokens removed. */
  oauthTokensRemoved?: number;
  /** True when the OAuth sweep reached its bound per run (or the job stopped) with rows left: the next run goes on. */
  oauthSweepUnfinished?: true;
  /**
   * Why the OAuth sweep failed, when it did (the store's message): the rest
   * of the run went on, and what the sweep removed before is counted.
   */
  oauthSweepFailed?: string;
  /** Account-months whose carried-forward entry was made or grew. */
  carriedForwardMonths: number;
  /**
   * Archive files written, with their row counts: every row the run
   * removes (a row a newer ledger entry refers to is kept, and not archived).
   */
  archiveFiles: Array<{ file: string; rows: number }>;
  /** Transactions that removed rows. */
  batches: number;
  /** SQLite: bytes the file gave back by incremental vacuum (0 on PostgreSQL or with auto_vacuum off). */
  reclaimedBytes: number;
  /** PostgreSQL: monthly partitions of `usage_records` dropped whole (their rows are in `usageRowsRemoved`). */
  partitionsDropped: string[];
  /** PostgreSQL: monthly partitions made ahead (the current month and the next two). */
  partitionsCreated: string[];
}

/** A report of a run that removed nothing (yet). */
export function emptyReport(cutoff: string | null): RetentionReport {
  return {
    cutoff,
    usageRowsRemoved: 0,
    ledgerEntriesRolledUp: 0,
    paymentRowsRemoved: 0,
    carriedForwardMonths: 0,
    archiveFiles: [],
    batches: 0,
    reclaimedBytes: 0,
    partitionsDropped: [],
    partitionsCreated: [],
  };
}
