import asciichart from "asciichart";
import { formatMoney } from "../billing/money.js";
import type { UsageReportLine } from "../usage/usage-report.js";

/** Most days a terminal chart draws (one column each); older days of the selection are left out. */
export const MAX_CHART_DAYS = 90;

const DAY_MS = 86_400_000;

/** Every UTC day from `first` to `last` (`YYYY-MM-DD`), both included. */
function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  for (
    let time = Date.parse(`${first}T00:00:00Z`);
    time <= Date.parse(`${last}T00:00:00Z`);
    time += DAY_MS
  ) {
    days.push(new Date(time).toISOString().slice(0, 10));
  }
  return days;
}

/** The line under a chart naming its days. */
function dayAxis(days: string[], offset: number): string {
  const first = days[0] ?? "";
  const last = days.at(-1) ?? "";
  const span = first === last ? first : `${first} to ${last}, one column per day`;
  return `${" ".repeat(offset)}${span}`;
}

/**
 * Draws the daily series of a usage report in the terminal (asciichart):
 * requests per day and cost per day, summed over the selected accounts and
 * personas, one column per UTC day from the first to the last day of the
 * lines (days without use are 0; at most {@link MAX_CHART_DAYS}, the
 * latest). Plain text without colour, so it reads the same in a pipe.
 *
 * @returns the charts, or a sentence when there is nothing to draw
 */
export function usageChart(lines: readonly UsageReportLine[]): string {
  if (lines.length === 0) return "no usage recorded for this selection";
  const sorted = [...lines].sort((a, b) => a.day.localeCompare(b.day));
  let days = daysBetween(sorted[0]?.day ?? "", sorted.at(-1)?.day ?? "");
  const skipped = Math.max(0, days.length - MAX_CHART_DAYS);
  days = days.slice(skipped);
  const index = new Map(days.map((day, position) => [day, position]));
  const requests = days.map(() => 0);
  const cost = days.map(() => 0);
  for (const line of lines) {
    const position = index.get(line.day);
    if (position === undefined) continue;
    requests[position] = (requests[position] ?? 0) + line.requests;
    cost[position] = (cost[position] ?? 0) + line.costMicros;
  }
  const labelWidth = 12;
  const draw = (values: number[], format: (value: number) => string) =>
    asciichart.plot(values, {
      height: 8,
      format: (value: number) => format(value).padStart(labelWidth),
    });
  const offset = labelWidth + 2;
  const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
  return [
    `Requests per day (${total(requests)} in all)`,
    draw(requests, (value) => String(Math.round(value))),
    dayAxis(days, offset),
    "",
    `Cost per day (${formatMoney(total(cost))} in all)`,
    draw(cost, (value) => formatMoney(Math.round(value))),
    dayAxis(days, offset),
    ...(skipped > 0 ? ["", `(${skipped} earlier days not drawn; narrow with --from)`] : []),
  ].join("\n");
}
