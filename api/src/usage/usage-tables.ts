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

/** How a request was paid for. */
export type PaymentMethod = "balance" | "x402" | "none";

/** One row per request that reached an account (the usage ledger). */
export interface UsageRecordsTable {
  id: string;
  created_at: string;
  account_id: string;
  api_key_id: string | null;
  persona_id: string | null;
  /** `generate`, `personify` or `completions`. */
  endpoint: string;
  /** HTTP status the request was answered with. */
  status: number;
  input_tokens: number;
  output_tokens: number;
  cost_micros: number;
  request_id: string | null;
  payment_method: PaymentMethod;
  /** For x402: the settlement transaction the facilitator reported. */
  payment_reference: string | null;
  /** The route target that answered a served request (migration 0006); null otherwise. */
  upstream: string | null;
  model: string | null;
  /** The persona version that answered (migration 0010); null on older rows. */
  persona_version: number | null;
  /**
   * Micro-units this request took from the account's balance (migration
   * 0017): a charge of the balance ledger, as a `charge` entry was before.
   * Kept when a settlement is reversed (its refund is an `adjustment`);
   * 0 for every other row, and for rows written before 0017.
   */
  charged_micros: number;
  /**
   * Milliseconds from the request's arrival to its settlement, or to the
   * record of its failure (migration 0027); null on older rows.
   */
  duration_ms: number | null;
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
