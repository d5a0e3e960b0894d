/**
 * Money is an integer count of micro-units (10⁻⁶) of the account's currency
 * everywhere in the service: in the database, in code and in the CLI's JSON.
 * No floating-point number ever holds an amount. These helpers convert
 * between decimal strings and micro-units exactly.
 */

/** Micro-units in one unit of a currency. */
export const MICROS_PER_UNIT = 1_000_000;

/** The largest amount the store accepts: well below 2^53 so every sum stays exact. */
export const MAX_MICROS = 2 ** 50;

/**
 * Parses a decimal amount of currency units (`"10"`, `"0.25"`, `"1.000001"`)
 * into micro-units, exactly.
 *
 * @throws {RangeError} for anything but a non-negative decimal with at most
 *   six fractional digits, or an amount above {@link MAX_MICROS}
 * @example
 * parseMoney("12.5"); // 12_500_000
 */
export function parseMoney(text: string): number {
  const match = /^(\d{1,12})(?:\.(\d{1,6}))?$/u.exec(text.trim());
  if (match?.[1] === undefined) {
    throw new RangeError(
      `"${text}" is not an amount: use a decimal number with at most 6 decimals, e.g. 10 or 0.25`,
    );
  }
  const whole = BigInt(match[1]) * BigInt(MICROS_PER_UNIT);
  const fraction = BigInt((match[2] ?? "").padEnd(6, "0") || "0");
  const micros = whole + fraction;
  if (micros > BigInt(MAX_MICROS)) throw new RangeError(`"${text}" is too large an amount`);
  return Number(micros);
}

/**
 * Formats micro-units as a decimal amount with at least two decimals
 * (`12500000` → `"12.50"`, `100` → `"0.0001"`, `-2500` → `"-0.0025"`).
 */
export function formatMoney(micros: number): string {
  const sign = micros < 0 ? "-" : "";
  const absolute = BigInt(Math.abs(micros));
  const whole = absolute / BigInt(MICROS_PER_UNIT);
  const fraction = (absolute % BigInt(MICROS_PER_UNIT)).toString().padStart(6, "0");
  const trimmed = fraction.replace(/0+$/u, "").padEnd(2, "0");
  return `${sign}${whole}.${trimmed}`;
}

/**
 * `tokens × pricePerMillion / 10⁶`, rounded up to a whole micro-unit, in
 * integer arithmetic.
 */
export function tokenCost(tokens: number, pricePerMillionTokens: number): number {
  const product = BigInt(Math.max(0, Math.trunc(tokens))) * BigInt(pricePerMillionTokens);
  return Number((product + 999_999n) / 1_000_000n);
}
