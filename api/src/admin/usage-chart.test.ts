import { describe, expect, it } from "vitest";
import type { UsageReportLine } from "../usage/usage-report.js";
import { MAX_CHART_DAYS, usageChart } from "./usage-chart.js";

function line(day: string, requests: number, costMicros: number): UsageReportLine {
  return {
    accountId: "a",
    day,
    personaId: "p",
    upstream: "offline",
    model: "offline-composer-1",
    requests,
    served: requests,
    inputTokens: 0,
    outputTokens: 0,
    costMicros,
  };
}

/** The chart rows of one of the two charts (the lines with the axis `┤` or `┼`). */
function rows(chart: string, title: string): string[] {
  const all = chart.split("\n");
  const start = all.findIndex((text) => text.startsWith(title));
  const result: string[] = [];
  for (const text of all.slice(start + 1)) {
    if (!/[┤┼]/u.test(text)) break;
    result.push(text);
  }
  return result;
}

describe("usageChart (persona-admin usage --chart)", () => {
  it("draws one column per day, days without use at 0, summed over personas", () => {
    const chart = usageChart([
      line("2026-11-01", 4, 400),
      line("2026-11-01", 4, 400),
      line("2026-11-04", 2, 100),
    ]);
    expect(chart).toContain("Requests per day (10 in all)");
    expect(chart).toContain("Cost per day (0.0009 in all)");
    const requests = rows(chart, "Requests per day");
    expect(requests).toHaveLength(9);
    // The top row carries the highest day's figure (8 requests), the bottom row 0.
    expect(requests[0]).toMatch(/^\s+8 [┤┼]/u);
    expect(requests.at(-1)).toMatch(/^\s+0 [┤┼]/u);
    // Four days drawn: the columns after the axis span four characters at most.
    for (const text of requests) expect(text.split(/[┤┼]/u)[1]?.length ?? 0).toBeLessThanOrEqual(4);
    expect(chart).toContain("2026-11-01 to 2026-11-04, one column per day");
  });

  it("keeps the latest days when the selection is longer than a terminal", () => {
    const chart = usageChart([line("2026-01-01", 1, 0), line("2026-11-01", 1, 0)]);
    expect(chart).toMatch(/\((\d+) earlier days not drawn/u);
    const drawn = rows(chart, "Requests per day").map((text) => text.split(/[┤┼]/u)[1] ?? "");
    expect(Math.max(...drawn.map((text) => text.length))).toBeLessThanOrEqual(MAX_CHART_DAYS);
  });

  it("says so when there is nothing to draw", () => {
    expect(usageChart([])).toBe("no usage recorded for this selection");
  });
});
