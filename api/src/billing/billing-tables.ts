import type { RateLimitWindowColumns } from "../storage/rate-limit-buckets.js";

/**
 * Tables of billing, rate limits and x402 payments (migration
 * `0002_billing_limits_payments`; its `usage_records` is the usage
 * feature's, usage/usage-tables.ts). Dialect-neutral like the rest of the
 * store: text, integer and bigint columns; times as ISO 8601 UTC strings
 * (which sort and compare as text), rate-limit window starts as Unix
 * milliseconds. Money is always an integer count of micro-units (10⁻⁶) of
 * the account's currency.
 */
export interface BillingTables {
  balance_reservations: BalanceReservationsTable;
  balance_entries: BalanceEntriesTable;
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

/** The append-only ledger of balance changes; per account its sum is the balance. */
export interface BalanceEntriesTable {
  id: string;
  account_id: string;
  kind: BalanceEntryKind;
  /** Signed: top-ups are positive, charges negative. */
  amount_micros: number;
  /** The usage record a charge belongs to (usage/usage-tables.ts). */
  usage_id: string | null;
  note: string | null;
  created_at: string;
}

/**
 * The three rate-limit windows of one bucket (an API key's ID, or
 * `playground:<accountId>`, `sign-in:…`) in one row, so a single
 * conditional UPDATE checks and consumes all of them at once. A window
 * starts at the first request after the previous one ended (migration
 * `0004_rate_limit_buckets`).
 */
export interface RateLimitBucketsTable extends RateLimitWindowColumns {
  bucket: string;
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
