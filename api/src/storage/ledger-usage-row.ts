/** How a request was paid for. */
export type PaymentMethod = "balance" | "x402" | "none";

/**
 * One row per request that reached an account (`usage_records`, the usage
 * ledger): written on the request path by the store's ledger
 * (storage/ledger.ts) with the rate limit, the hold or the charge it goes
 * with; read back by the usage feature (usage/usage-tables.ts).
 */
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
  /**
   * The OAuth grant (connected app, `oauth_grants.id`) whose access token
   * made the request: a tool call of `/mcp` (migration 0030); null for
   * every other caller (an API key's is `api_key_id`) and on older rows.
   */
  oauth_grant_id: string | null;
}

/** The SQL types the usage row's columns were made with (kysely's names, valid on both dialects). */
export type UsageColumnType = "text" | "integer" | "bigint";

/**
 * The one list of the usage row's columns (`usage_records`), in the
 * table's order (migration 0002's columns, then `upstream` and `model`
 * from 0006, `persona_version` from 0010, `charged_micros` from 0017,
 * `duration_ms` from 0027, `oauth_grant_id` from 0030),
 * each with its SQL type. Checked against {@link UsageRecordsTable}: a
 * column missing here or not in the table does not compile. The ledgers'
 * statements, their PostgreSQL typed arrays and the archive's JSON Lines
 * fields all derive from it.
 */
export const USAGE_COLUMN_TYPES = {
  id: "text",
  created_at: "text",
  account_id: "text",
  api_key_id: "text",
  persona_id: "text",
  endpoint: "text",
  status: "integer",
  input_tokens: "integer",
  output_tokens: "integer",
  cost_micros: "bigint",
  request_id: "text",
  payment_method: "text",
  payment_reference: "text",
  upstream: "text",
  model: "text",
  persona_version: "integer",
  charged_micros: "bigint",
  duration_ms: "integer",
  oauth_grant_id: "text",
} as const satisfies Record<keyof UsageRecordsTable, UsageColumnType>;

/** A column of the usage row. */
export type UsageColumn = keyof typeof USAGE_COLUMN_TYPES;

/** The usage row's column names, in {@link USAGE_COLUMN_TYPES} order (the table's). */
export const USAGE_COLUMNS: readonly UsageColumn[] = Object.keys(
  USAGE_COLUMN_TYPES,
) as UsageColumn[];

/** The usage row's columns but `excluded`, in table order (the columns a statement writes). */
export function usageColumnsExcept(...excluded: readonly UsageColumn[]): UsageColumn[] {
  return USAGE_COLUMNS.filter((column) => !excluded.includes(column));
}
