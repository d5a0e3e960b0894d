import { formatMoney } from "../billing/money.js";
import type { UsageSummary } from "./usage-summary.js";

/** Columns of `GET /usage.csv`, in order (documented in api/README.md). */
export const USAGE_CSV_COLUMNS = [
  "day",
  "persona_id",
  "persona_name",
  "endpoint",
  "requests",
  "served",
  "input_tokens",
  "output_tokens",
  "spend",
  "currency",
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line
 * break; a text starting with `=`, `+`, `-`, `@`, tab or carriage return
 * gets a leading `'` so a spreadsheet does not run it as a formula.
 */
export function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/u.test(text)) text = `'${text}`;
  return /[",\r\n]/u.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The page's table as CSV: a header line, then one line per day, persona
 * and endpoint with any request (oldest day first), CRLF line ends.
 * `spend` is a decimal amount of `currency` (exact, from micro-units).
 */
export function usageCsv(summary: UsageSummary): string {
  const lines = [USAGE_CSV_COLUMNS.join(",")];
  for (const line of summary.lines) {
    lines.push(
      [
        line.day,
        line.personaId ?? "",
        line.personaId === null ? "" : (summary.personaNames.get(line.personaId) ?? ""),
        line.endpoint,
        line.requests,
        line.served,
        line.inputTokens,
        line.outputTokens,
        formatMoney(line.costMicros),
        summary.currency,
      ]
        .map(csvField)
        .join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}
