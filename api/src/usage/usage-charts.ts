import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import { html, SafeHtml } from "../pages/html.js";
import { formatCount } from "../pages/number-format.js";

/**
 * Charts of the `/usage` page, drawn on the server as SVG by Observable
 * Plot over a server-side DOM (linkedom): no script in the browser, and
 * the page works the same without JavaScript. Readable without colour
 * alone: every series has its own symbol as well as its own colour, a
 * legend names each symbol, every point has a tooltip (`<title>`) with its
 * figure, and each chart has a text alternative (its label and a summary
 * sentence); the table under the charts lists every figure.
 */

/** One line of a chart: a name and a value per day of the period. */
export interface ChartSeries {
  name: string;
  /** One value per day of {@link LineChart.days}, same order. */
  values: number[];
}

/** What one chart draws. */
export interface LineChart {
  /** Stable identifier, put in `data-chart` (tests and styles find the chart by it). */
  id: string;
  /** Visible caption and accessible name. */
  title: string;
  /** `YYYY-MM-DD` (UTC), oldest first. */
  days: string[];
  series: ChartSeries[];
  /** Label of the vertical axis, e.g. "Requests" or "USD". */
  unit: string;
  /** How a value is written in tooltips and the summary, e.g. `3 requests`, `0.25 USD`. */
  format: (value: number) => string;
  /** Values are drawn divided by this (1 000 000 draws micro-units as units); tooltips keep the values. */
  scale?: number;
  /** Fill the area under a single series (the balance). */
  area?: boolean;
}

/** Series a chart draws at most; the rest are summed into one named "Other". */
export const MAX_SERIES = 6;

const { document } = parseHTML("<!doctype html><html><body></body></html>");

/**
 * Keeps the {@link MAX_SERIES} − 1 largest series (by total) and sums the
 * rest into "Other", so a chart never needs more symbols than it has.
 */
export function limitSeries(series: ChartSeries[]): ChartSeries[] {
  if (series.length <= MAX_SERIES) return series;
  const total = (entry: ChartSeries) => entry.values.reduce((sum, value) => sum + value, 0);
  const sorted = [...series].sort((a, b) => total(b) - total(a));
  const kept = sorted.slice(0, MAX_SERIES - 1);
  const rest = sorted.slice(MAX_SERIES - 1);
  const other = rest[0]?.values.map((_value, index) =>
    rest.reduce((sum, entry) => sum + (entry.values[index] ?? 0), 0),
  );
  return [...kept, { name: "Other", values: other ?? [] }];
}

/** One sentence per chart for readers who cannot see it: totals and peaks per series. */
export function chartSummary(chart: LineChart): string {
  if (chart.series.length === 0) return `${chart.title}: nothing in this period.`;
  const parts = chart.series.map((entry) => {
    let peak = 0;
    entry.values.forEach((value, index) => {
      if (value > (entry.values[peak] ?? 0)) peak = index;
    });
    const last = entry.values.at(-1) ?? 0;
    return chart.area === true
      ? `${entry.name}: ${chart.format(last)} now, highest ${chart.format(entry.values[peak] ?? 0)} on ${chart.days[peak]}`
      : `${entry.name}: ${chart.format(entry.values.reduce((sum, value) => sum + value, 0))} in all, most ${chart.format(entry.values[peak] ?? 0)} on ${chart.days[peak]}`;
  });
  return `${chart.title}, ${chart.days[0]} to ${chart.days.at(-1)}. ${parts.join("; ")}.`;
}

interface Point {
  day: Date;
  dayText: string;
  series: string;
  /** The value as stored (tooltips format it). */
  value: number;
  /** The value as drawn: {@link Point.value} divided by the chart's scale. */
  drawn: number;
}

/**
 * The one drawing of each chart. Phones get the same SVG in a region that
 * scrolls sideways (CSS keeps it at least 36rem wide, so its text stays
 * legible) rather than a second drawing: drawing is most of the page's
 * time. That region opens at its right end (the latest day, CSS
 * `direction: rtl` on the scroller), so the vertical axis is drawn on the
 * right, beside the latest day, where a phone shows it first.
 */
const SIZE = { width: 760, height: 280, ticks: 8, fontSize: "12px", radius: 3 } as const;

/**
 * Dash patterns of the lines, one per series in order (SVG
 * `stroke-dasharray`; `undefined` is solid): lines that run on top of each
 * other (two series at zero) stay told apart, besides their colour and symbol.
 */
export const DASH_PATTERNS: ReadonlyArray<string | undefined> = [
  undefined,
  "7 4",
  "2 3",
  "10 3 2 3",
  "4 4",
  "1 5",
];

/** Sum of a series' values (drawing order: smaller totals, e.g. a line at zero, beneath). */
function totalOf(series: ChartSeries): number {
  return series.values.reduce((sum, value) => sum + value, 0);
}

/** Draws a chart: Plot's legend (`""` when it has none) and the labelled SVG, as markup. */
function drawPlot(
  chart: LineChart,
  points: Point[],
  size: typeof SIZE,
): { legend: string; svg: string } {
  const names = chart.series.map((entry) => entry.name);
  const title = (point: Point) =>
    `${point.series} · ${point.dayText}: ${chart.format(point.value)}`;
  const marks: Plot.Markish[] = [Plot.ruleY([0])];
  if (chart.area === true) {
    marks.push(Plot.areaY(points, { x: "day", y: "drawn", fill: "series", fillOpacity: 0.15 }));
  }
  // One line mark per series, each with its own dash; the smallest totals
  // first, so a line at zero lies beneath one that rises from it.
  const drawingOrder = chart.series
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => totalOf(a.entry) - totalOf(b.entry) || a.index - b.index);
  for (const { entry, index } of drawingOrder) {
    const dash = DASH_PATTERNS[index % DASH_PATTERNS.length];
    marks.push(
      Plot.lineY(
        points.filter((point) => point.series === entry.name),
        {
          x: "day",
          y: "drawn",
          stroke: "series",
          strokeWidth: 2,
          ...(dash === undefined ? {} : { strokeDasharray: dash }),
        },
      ),
    );
  }
  const symbolsInOrder = drawingOrder.flatMap(({ entry }) =>
    points.filter((point) => point.series === entry.name),
  );
  marks.push(
    Plot.dot(symbolsInOrder, {
      x: "day",
      y: "drawn",
      stroke: "series",
      symbol: "series",
      r: size.radius,
      strokeWidth: 1.5,
      fill: "white",
      title,
    }),
  );
  const plot = Plot.plot({
    document,
    width: size.width,
    height: size.height,
    marginLeft: 16,
    marginRight: 64,
    style: { background: "transparent", fontSize: size.fontSize },
    x: { type: "utc", label: null, ticks: size.ticks },
    y: {
      axis: "right",
      grid: true,
      label: chart.unit,
      zero: true,
      nice: true,
      ticks: 5,
      tickFormat: (value: number) => formatAxisNumber(value),
    },
    color: { domain: names, scheme: "observable10" },
    symbol: { domain: names, legend: names.length > 1 },
    marks,
  });
  // With a legend Plot returns a <figure> holding the legend and the SVG.
  const svg =
    plot.tagName.toLowerCase() === "svg"
      ? plot
      : [...plot.children].find((child) => child.tagName.toLowerCase() === "svg");
  // The SVG is one image to assistive technology: Plot's labels of its inner
  // groups are not allowed there (ARIA), so only the SVG keeps one.
  for (const element of plot.querySelectorAll("[aria-label]")) {
    if (element !== svg) element.removeAttribute("aria-label");
  }
  svg?.setAttribute("role", "img");
  svg?.setAttribute("aria-label", chart.title);
  svg?.setAttribute("aria-describedby", `${chart.id}-summary`);
  svg?.setAttribute("class", `${svg.getAttribute("class") ?? ""} plot`.trim());
  if (svg === undefined || svg === plot) return { legend: "", svg: plot.outerHTML };
  // The legend stays outside the region that scrolls, so it is always in view.
  const legend = [...plot.children]
    .filter((child) => child !== svg)
    .map((child) => child.outerHTML)
    .join("");
  return { legend, svg: svg.outerHTML };
}

/** Axis ticks: whole numbers grouped like every figure of the pages, fractions as they come. */
function formatAxisNumber(value: number): string {
  return Number.isInteger(value) ? formatCount(value) : String(value);
}

/**
 * Draws a chart as a `<figure>`: caption, the SVG (`role="img"`, labelled,
 * with a tooltip per point) and the summary sentence.
 */
export function renderLineChart(chart: LineChart): SafeHtml {
  const summary = chartSummary(chart);
  const scale = chart.scale ?? 1;
  const points: Point[] = chart.series.flatMap((entry) =>
    chart.days.map((day, index) => ({
      day: new Date(`${day}T00:00:00Z`),
      dayText: day,
      series: entry.name,
      value: entry.values[index] ?? 0,
      drawn: (entry.values[index] ?? 0) / scale,
    })),
  );
  const drawing = drawPlot(chart, points, SIZE);
  return html`<figure class="chart" data-chart="${chart.id}">
    <figcaption>${chart.title}</figcaption>
    ${drawing.legend === "" ? "" : html`<div class="chart-legend">${new SafeHtml(drawing.legend)}</div>`}
    <div class="chart-scroll" tabindex="0" role="group" aria-label="${chart.title} (opens at the latest day; scrolls sideways to earlier days on narrow screens)"><div class="chart-canvas">${new SafeHtml(drawing.svg)}</div></div>
    <p class="scroll-hint muted" aria-hidden="true">← Scroll for earlier days</p>
    <p class="chart-summary muted" id="${chart.id}-summary">${summary}</p>
  </figure>`;
}
