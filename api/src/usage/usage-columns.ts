import type { UsageRecordsTable } from "./usage-tables.js";

/** The SQL types the usage row's columns were made with (kysely's names, valid on both dialects). */
export type UsageColumnType = "text" | "integer" | "bigint";

/**
 * The one list of the usage row's columns (`usage_records`), in the
 * table's order (migration 0002's columns, then `upstream` and `model`
 * from 0006, `persona_version` from 0010, `charged_micros` from 0017,
 * `duration_ms` from 0027),
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
