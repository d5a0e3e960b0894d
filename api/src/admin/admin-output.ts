/** Where the admin program and its command groups write; injectable for tests. */
export interface AdminOutput {
  /** One result: text, or JSON already rendered. */
  out(text: string): void;
  /** One error message. */
  error(text: string): void;
  /**
   * A progress line that replaces the previous one (a terminal's standard
   * error); `""` clears it. Absent when standard error is not a terminal.
   */
  progress?(text: string): void;
}

/**
 * Renders rows as an aligned text table under `header`, columns two spaces
 * apart; columns from `rightAlignFrom` on (counts, money) are right-aligned.
 */
export function textTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  rightAlignFrom = Number.POSITIVE_INFINITY,
): string {
  const widths = header.map((title, index) =>
    Math.max(title.length, ...rows.map((row) => (row[index] ?? "").length)),
  );
  const render = (cells: readonly string[]) =>
    cells
      .map((cell, index) =>
        index >= rightAlignFrom
          ? cell.padStart(widths[index] ?? 0)
          : cell.padEnd(widths[index] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return [render(header), ...rows.map(render)].join("\n");
}
