import type { UsageRecordsTable } from "../storage/ledger-usage-row.js";

/**
 * The usage ledger (`usage_records`, migration
 * `0002_billing_limits_payments`, columns added since) and the daily totals
 * of migration `0008_usage_daily_totals`, kept by triggers in step with
 * `usage_records` and `balance_entries` (see usage-migration.ts). Days are
 * `YYYY-MM-DD` (UTC); money is micro-units.
 */
export interface UsageTables {
  usage_records: UsageRecordsTable;
  usage_daily_totals: UsageDailyTotalsTable;
  balance_daily_totals: BalanceDailyTotalsTable;
  /** The newest retention cutoff (migration `0012_usage_retention`); one row, id 1. */
  retention_cutoff: RetentionCutoffTable;
}

/** An account's usage of one persona through one endpoint on one day. */
export interface UsageDailyTotalsTable {
  account_id: string;
  day: string;
  /** `''` for requests without a persona. */
  persona_id: string;
  endpoint: string;
  requests: number;
  /** Requests answered 200. */
  served: number;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number;
  /**
   * The charges of the day's usage rows (`usage_records.charged_micros`)
   * written or changed since migration 0019; a charge taken out counts
   * negative. The day's ledger sum is `balance_daily_totals.amount_micros`
   * minus the day's `charged_micros` (usage/daily-charges-migration.ts).
   */
  charged_micros: number;
}

/**
 * The sum of an account's ledger entries of one day (signed micro-units),
 * and of the charges of usage rows written between migrations 0017 and
 * 0019 (later ones: {@link UsageDailyTotalsTable.charged_micros}).
 */
export interface BalanceDailyTotalsTable {
  account_id: string;
  day: string;
  amount_micros: number;
}

/** The newest cutoff a retention run used: rows older than it were removed (usage/usage-retention.ts). */
export interface RetentionCutoffTable {
  id: number;
  /** ISO 8601 UTC, a UTC midnight. */
  cutoff: string;
}
