import type { ComparedRow } from "./scorecard.js";

// How the text scorecards write their figures: one home for the run's
// scorecard, the side-by-side comparison and the conversation tables.

/** A rate 0–1 as a percentage ("100%", "83.3%"); "–" for none. */
export function percent(rate: number | null): string {
  if (rate === null) return "–";
  const value = rate * 100;
  return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
}

/** A score with `digits` decimals; "–" for none. */
export function score(value: number | null, digits = 2): string {
  return value === null ? "–" : value.toFixed(digits);
}

/** A signed score change with two decimals ("+0.40", "-1.20", "0.00"); "–" for none. */
export function signedScore(value: number | null): string {
  if (value === null) return "–";
  const rounded = Number(value.toFixed(2));
  return rounded > 0 ? `+${rounded.toFixed(2)}` : rounded.toFixed(2).replace(/^-0\.00$/u, "0.00");
}

/** Percentage points with their sign ("+12.5", "-100", "0"); "–" for none. */
export function points(value: number | null): string {
  if (value === null) return "–";
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  return `${value > 0 ? "+" : "-"}${Number.isInteger(magnitude) ? magnitude : magnitude.toFixed(1)}`;
}

/**
 * The marker of a difference, relative to the baseline: "▲" the candidate
 * is better, "▼" worse, "" no difference, "≠" only one side has a figure.
 * `delta` is candidate − baseline where higher is better.
 */
export function marker(delta: number | null, candidate: unknown, baseline: unknown): string {
  if (delta === null) return candidate === baseline ? "" : "≠";
  return delta > 0 ? "▲" : delta < 0 ? "▼" : "";
}

/** A compared row's marker, with "regressed" when it fell by `--max-regression` or more. */
export function rowMarker(row: ComparedRow): string {
  const sign = marker(row.delta, row.candidate, row.baseline);
  return row.regressed ? `${sign} regressed` : sign;
}

/** Aligns rows of cells into columns separated by two spaces (first row: the header). */
export function renderTable(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.entries()) {
      widths[index] = Math.max(widths[index] ?? 0, [...cell].length);
    }
  }
  return rows
    .map((row) =>
      row
        .map((cell, index) => cell + " ".repeat((widths[index] ?? 0) - [...cell].length))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
