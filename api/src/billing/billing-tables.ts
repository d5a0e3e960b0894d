/**
 * Tables of billing, rate limits and x402 payments (migration
 * `0002_billing_limits_payments`). Dialect-neutral like the rest of the
 * store: text, integer and bigint columns; times as ISO 8601 UTC strings
 * (which sort and compare as text), rate-limit window starts as Unix
 * milliseconds. Money is always an integer count of micro-units (10⁻⁶) of
 * the account's currency.
 */
export interface BillingTables {
  balance_reservations: BalanceReservationsTable;
  balance_entries: BalanceEntriesTable;
  usage_records: UsageRecordsTable;
  rate_limit_buckets: RateLimitBucketsTable;
  x402_payments: X402PaymentsTable;
}

/** An amount held on an account while a request runs (reserve → settle or release). */
export interface BalanceReservationsTable {
  id: string;
  account_id: string;
  amount_micros: number;
  /** The instance that made it, so a restarted instance can release what it left behind. */
  instance_id: string;
  request_id: string | null;
  created_at: string;
  /** After this time the sweeper releases it (the request is long gone). */
  expires_at: string;
}

/**
 * Kinds of balance change. `carried_forward`: the sum of an account's
 * entries of one month that retention removed (usage/usage-retention.ts),
 * dated the month's first instant, so the ledger's sum stays the balance.
 */
export type BalanceEntryKind = "topup" | "charge" | "adjustment" | "carried_forward";

/**
 * The ledger kind of the one entry per account and month that stands for
 * the entries retention removed (migration 0012): the daily totals never
 * count it, as those entries were counted already.
 */
export const CARRIED_FORWARD_KIND = "carried_forward" satisfies BalanceEntryKind;

/**
 * PostgreSQL: the one-row table whose row crash recovery removes together
 * with the holds (both unlogged, migration 0016): when it is empty, the
 * holds of `balance_reservations` were lost and the accounts' reserved sums
 * must be made to match again (`BalanceStore.reconcileLostHolds`). Columns:
 * `id integer primary key`, its one row `1`. SQLite has no such table.
 */
export const HOLDS_MARKER_TABLE = "balance_reservations_marker";

/** The append-only ledger of balance changes; per account its sum is the balance. */
export interface BalanceEntriesTable {
  id: string;
  account_id: string;
  kind: BalanceEntryKind;
  /** Signed: top-ups are positive, charges negative. */
  amount_micros: number;
  /** The usage record a charge belongs to. */
  usage_id: string | null;
  note: string | null;
  created_at: string;
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
}

/**
 * The three rate-limit windows of one bucket (an API key's ID, or
 * `playground:<accountId>`, `sign-in:…`) in one row, so a single
 * conditional UPDATE checks and consumes all of them at once. A window
 * starts at the first request after the previous one ended (migration
 * `0004_rate_limit_buckets`).
 */
export interface RateLimitBucketsTable {
  bucket: string;
  minute_start: number;
  minute_count: number;
  hour_start: number;
  hour_count: number;
  day_start: number;
  day_count: number;
}

/** x402 payments seen, keyed by the hash of the payment header, so none is used twice. */
export interface X402PaymentsTable {
  id: string;
  persona_id: string;
  amount_micros: number;
  /** `pending` while verifying and serving, then `settled` or `failed`. */
  status: "pending" | "settled" | "failed";
  payer: string | null;
  transaction_reference: string | null;
  created_at: string;
}
