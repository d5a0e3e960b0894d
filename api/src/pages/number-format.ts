import { formatMoney } from "../billing/money.js";

/**
 * How the pages write numbers: one module, so a count in a table cell, a
 * card, a chart's axis and its tooltips read the same ("19629976"
 * in a cell beside "71,698" in a card). English grouping (`,` every three
 * digits, `.` before decimals), whatever the server's locale. Files meant
 * for machines (the CSV) keep plain digits and use `formatMoney` directly.
 */
const COUNT_FORMAT = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/**
 * A whole count with thousands separators.
 *
 * @param count - any finite number; fractions are rounded to the nearest whole
 * @example
 * formatCount(19629976); // "19,629,976"
 */
export function formatCount(count: number): string {
  return COUNT_FORMAT.format(count);
}

/**
 * An amount of micro-units (10⁻⁶ of the currency unit) as the pages show
 * it: at least two decimals, as many as needed up to six (as
 * `formatMoney`), and thousands separators in the whole part.
 *
 * @param micros - signed integer micro-units
 * @example
 * formatAmount(1_234_500_000); // "1,234.50"
 * formatAmount(100); // "0.0001"
 */
export function formatAmount(micros: number): string {
  const plain = formatMoney(micros);
  const sign = plain.startsWith("-") ? "-" : "";
  const [whole = "0", fraction = "00"] = plain.slice(sign.length).split(".");
  return `${sign}${whole.replace(/\B(?=(\d{3})+$)/gu, ",")}.${fraction}`;
}

/**
 * A count with its noun, singular for exactly one.
 *
 * @example
 * formatQuantity(1, "request", "requests"); // "1 request"
 * formatQuantity(1200, "request", "requests"); // "1,200 requests"
 */
export function formatQuantity(count: number, one: string, many: string): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}
