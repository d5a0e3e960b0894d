import { MICROS_PER_UNIT } from "../billing/money.js";
import { html, type SafeHtml } from "../pages/html.js";
import { formatAmount, formatCount, formatQuantity } from "../pages/number-format.js";
import { describeReset } from "./reset-time.js";
import { type ChartSeries, limitSeries, renderLineChart } from "./usage-charts.js";
import type { KeyWindows } from "./usage-limits.js";
import type { UsageDayLine, UsageSummary } from "./usage-summary.js";

/** The name a persona is shown under: its name, its ID when deleted, or a note for none. */
export function personaLabel(summary: UsageSummary, personaId: string | null): string {
  if (personaId === null) return "(no persona)";
  return summary.personaNames.get(personaId) ?? personaId;
}

/** Sums a measure of the lines per series and day, over `days`. */
function seriesBy(
  summary: UsageSummary,
  days: readonly string[],
  keyOf: (line: UsageDayLine) => string,
  measure: (line: UsageDayLine) => number,
): ChartSeries[] {
  const dayIndex = new Map(days.map((day, index) => [day, index]));
  const series = new Map<string, number[]>();
  for (const line of summary.lines) {
    const index = dayIndex.get(line.day);
    if (index === undefined) continue;
    const name = keyOf(line);
    let values = series.get(name);
    if (values === undefined) {
      values = days.map(() => 0);
      series.set(name, values);
    }
    values[index] = (values[index] ?? 0) + measure(line);
  }
  return limitSeries(
    [...series.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, values]) => ({ name, values })),
  );
}

/**
 * Persona labels that stay distinct when two personas share a name (the
 * ID's first characters are added to both).
 */
function personaKey(summary: UsageSummary): (line: UsageDayLine) => string {
  const counts = new Map<string, number>();
  const ids = new Set(summary.lines.map((line) => line.personaId));
  for (const id of ids) {
    const label = personaLabel(summary, id);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return (line) => {
    const label = personaLabel(summary, line.personaId);
    return (counts.get(label) ?? 0) > 1 && line.personaId !== null
      ? `${label} (${line.personaId.slice(0, 8)})`
      : label;
  };
}

/**
 * Fewest days with requests that the charts need: with fewer, a line
 * through one or two points says nothing a short table does not, in a
 * fraction of the room (five charts were most of a phone's page).
 */
export const MIN_CHART_DAYS = 3;

/** The period's days from the account's first ({@link UsageSummary.startDay}): nothing is drawn before it existed. */
export function chartDays(summary: UsageSummary): string[] {
  return summary.days.filter((day) => day >= summary.startDay);
}

/**
 * Requests and spend per day: one chart each, its lines the personas when
 * there are several, else the endpoints when there are several, else the
 * total (the table below the charts has every split).
 */
function measureCharts(summary: UsageSummary, days: string[]): SafeHtml[] {
  const requests = (value: number) => formatQuantity(value, "request", "requests");
  const money = (value: number) => `${formatAmount(Math.round(value))} ${summary.currency}`;
  const splits = [
    { id: "persona", keyOf: personaKey(summary) },
    { id: "endpoint", keyOf: (line: UsageDayLine) => `/${line.endpoint}` },
  ] as const;
  const measures = [
    {
      id: "requests",
      title: "Requests per day",
      unit: "Requests",
      measure: (line: UsageDayLine) => line.requests,
      format: requests,
    },
    {
      id: "spend",
      title: "Spend per day",
      unit: summary.currency,
      scale: MICROS_PER_UNIT,
      measure: (line: UsageDayLine) => line.costMicros,
      format: money,
    },
  ] as const;
  return measures.map(({ id, title, measure, ...chart }) => {
    // A split into one line repeats the total: the next split, or the total, is drawn instead.
    for (const split of splits) {
      const series = seriesBy(summary, days, split.keyOf, measure);
      if (series.length > 1) {
        return renderLineChart({
          ...chart,
          days,
          id: `${id}-by-${split.id}`,
          title: `${title} by ${split.id}`,
          series,
        });
      }
    }
    return renderLineChart({
      ...chart,
      days,
      id,
      title,
      series: seriesBy(summary, days, () => "Total", measure),
    });
  });
}

/**
 * The charts of the period from the account's first day: requests and
 * spend per day ({@link measureCharts}) and the balance at the end of each
 * day. With requests on fewer than {@link MIN_CHART_DAYS} days, the table
 * of {@link dailyTable} instead.
 */
function charts(summary: UsageSummary): SafeHtml {
  const days = chartDays(summary);
  const active = new Set(summary.lines.map((line) => line.day));
  if (active.size < MIN_CHART_DAYS) return dailyTable(summary, days);
  const money = (value: number) => `${formatAmount(Math.round(value))} ${summary.currency}`;
  const balance = summary.balanceCourse.filter((point) => point.day >= summary.startDay);
  return html`<h2 id="charts">Charts</h2>
    <p class="muted">Each line has its own symbol and dash as well as its colour; hover a point for its figure. On a narrow screen each chart opens at the latest day and scrolls back. The <a href="#figures">table below</a> lists every figure.</p>
    <div class="chart-grid">
    ${measureCharts(summary, days)}
    ${renderLineChart({
      days,
      id: "balance",
      title: "Balance at the end of each day",
      unit: summary.currency,
      scale: MICROS_PER_UNIT,
      series: [{ name: "Balance", values: balance.map((point) => point.balanceMicros) }],
      format: money,
      area: true,
    })}
  </div>`;
}

/**
 * The short form of the charts: one row per day with requests or a change
 * of the balance, newest first — requests, spend and the balance at the
 * day's end.
 */
function dailyTable(summary: UsageSummary, days: readonly string[]): SafeHtml {
  const totals = new Map<string, { requests: number; costMicros: number }>();
  for (const line of summary.lines) {
    const total = totals.get(line.day) ?? { requests: 0, costMicros: 0 };
    total.requests += line.requests;
    total.costMicros += line.costMicros;
    totals.set(line.day, total);
  }
  const balanceOn = new Map(summary.balanceCourse.map((point) => [point.day, point.balanceMicros]));
  const rows = days
    .filter((day, index) => {
      const before = index === 0 ? undefined : balanceOn.get(days[index - 1] as string);
      return totals.has(day) || (before !== undefined && before !== balanceOn.get(day));
    })
    .reverse()
    .map((day) => {
      const total = totals.get(day) ?? { requests: 0, costMicros: 0 };
      return html`<tr>
        <td class="day" data-label="Day (UTC)">${day}</td>
        <td class="number" data-label="Requests">${formatCount(total.requests)}</td>
        <td class="number" data-label="Spend (${summary.currency})">${formatAmount(total.costMicros)}</td>
        <td class="number" data-label="Balance (${summary.currency})">${formatAmount(balanceOn.get(day) ?? 0)}</td>
      </tr>`;
    });
  const heading = html`<h2 id="charts">Per day</h2>`;
  if (rows.length === 0) {
    return html`${heading}<p class="muted">No requests in the last ${summary.days.length} days.</p>`;
  }
  return html`${heading}
    <p class="muted">Charts of each day appear once there are requests on ${MIN_CHART_DAYS} days; until then, the days so far.</p>
    <div class="table-scroll" tabindex="0" role="region" aria-label="Requests, spend and balance per day"><table id="daily-table" class="stacked">
    <caption class="visually-hidden">Requests, spend and the balance at the end of each day with requests or a change of the balance, newest first</caption>
    <thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Spend (${summary.currency})</th><th scope="col" class="number">Balance (${summary.currency})</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}

/** The rate-limit windows of each active key: used of limit with a bar, and when each resets. */
function limitsSection(keys: KeyWindows[], now: number): SafeHtml {
  if (keys.length === 0) {
    return html`<p class="muted">No active keys. <a href="/keys">Create a key</a> to call the API.</p>`;
  }
  const rows = keys.flatMap((key) =>
    key.windows.map(
      (window, index) => html`<tr>
        ${index === 0 ? html`<th scope="rowgroup" rowspan="${key.windows.length}">${key.name}<br><code>${key.masked}</code></th>` : ""}
        <td data-label="Window">per ${window.window}</td>
        <td class="number" data-label="Used">${formatCount(window.used)} of ${formatCount(window.limit)}</td>
        <td class="meter-cell"><span class="meter${window.used >= window.limit ? " full" : ""}" aria-hidden="true"><span style="width:${Math.min(100, Math.round((window.used / window.limit) * 100))}%"></span></span></td>
        <td class="reset" data-label="Resets"><time datetime="${new Date(window.reset * 1000).toISOString()}">${describeReset(window.reset, now)}</time></td>
      </tr>`,
    ),
  );
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Rate limits of each key"><table class="limits stacked">
    <caption class="visually-hidden">Rate-limit windows of each active key</caption>
    <thead><tr><th scope="col">Key</th><th scope="col">Window</th><th scope="col" class="number">Used</th><th scope="col"><span class="visually-hidden">Share used</span></th><th scope="col">Resets</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}

/** The table of every figure the charts draw, one row per day, persona and endpoint. */
function usageTable(summary: UsageSummary): SafeHtml {
  if (summary.lines.length === 0) {
    return html`<p class="muted">No requests in the last ${summary.days.length} days.</p>`;
  }
  const ordered = [...summary.lines].sort(
    (a, b) =>
      b.day.localeCompare(a.day) ||
      personaLabel(summary, a.personaId).localeCompare(personaLabel(summary, b.personaId)) ||
      a.endpoint.localeCompare(b.endpoint),
  );
  const rows = ordered.map(
    (line) => html`<tr>
      <td class="day" data-label="Day (UTC)">${line.day}</td>
      <td data-label="Persona">${personaLabel(summary, line.personaId)}</td>
      <td data-label="Endpoint">/${line.endpoint}</td>
      <td class="number" data-label="Requests">${formatCount(line.requests)}</td>
      <td class="number" data-label="Served">${formatCount(line.served)}</td>
      <td class="number" data-label="Input tokens">${formatCount(line.inputTokens)}</td>
      <td class="number" data-label="Output tokens">${formatCount(line.outputTokens)}</td>
      <td class="number" data-label="Spend (${summary.currency})">${formatAmount(line.costMicros)}</td>
    </tr>`,
  );
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Figures per day, persona and endpoint"><table id="usage-table" class="figures stacked">
    <caption class="visually-hidden">Requests and spend per day, persona and endpoint, newest day first, then by persona name</caption>
    <thead><tr><th scope="col">Day (UTC)</th><th scope="col">Persona</th><th scope="col">Endpoint</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Served</th><th scope="col" class="number">Input tokens</th><th scope="col" class="number">Output tokens</th><th scope="col" class="number">Spend (${summary.currency})</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}

/** A persona of the account with the version that answers its requests. */
export interface LivePersona {
  id: string;
  name: string;
  version: number;
  /** When this version went live (ISO 8601 UTC). */
  since: string;
  /**
   * What the customer is told about the version (its release note), if
   * any; never the operator's internal note.
   */
  releaseNote: string | null;
}

/** Requests and spend of one persona version over the page's days (`/usage?by=version`). */
export interface VersionUsage {
  personaId: string | null;
  /** null for requests recorded before versions (or refused before a persona was read). */
  version: number | null;
  requests: number;
  served: number;
  costMicros: number;
}

/** The account's personas, each with its live version, since when, and its release note. */
function personasSection(personas: readonly LivePersona[]): SafeHtml {
  if (personas.length === 0) return html`<p class="muted">No personas yet.</p>`;
  const rows = personas.map(
    (persona) => html`<tr>
      <td data-label="Persona"><span>${persona.name}<br><code>${persona.id}</code></span></td>
      <td class="number" data-label="Live version">${formatCount(persona.version)}</td>
      <td data-label="Live since">${persona.since.slice(0, 16).replace("T", " ")} UTC</td>
      <td data-label="Release note">${persona.releaseNote ?? html`<span class="muted">–</span>`}</td>
    </tr>`,
  );
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Your personas and their live versions"><table id="personas-table" class="stacked">
    <caption class="visually-hidden">Each persona, the version answering its requests, when it went live and its release note</caption>
    <thead><tr><th scope="col">Persona</th><th scope="col" class="number">Live version</th><th scope="col">Live since</th><th scope="col">Release note</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}

/** Requests per persona version, or a link that asks for them. */
function versionsSection(summary: UsageSummary, versions: readonly VersionUsage[] | undefined) {
  if (versions === undefined) {
    return html`<p><a class="button button-quiet" href="/usage?by=version#by-version">Split by persona version</a></p>`;
  }
  if (versions.length === 0) {
    return html`<p class="muted">No requests in the last ${summary.days.length} days.</p>`;
  }
  const rows = versions.map(
    (line) => html`<tr>
      <td data-label="Persona">${personaLabel(summary, line.personaId)}</td>
      <td class="number" data-label="Version">${line.version === null ? "–" : formatCount(line.version)}</td>
      <td class="number" data-label="Requests">${formatCount(line.requests)}</td>
      <td class="number" data-label="Served">${formatCount(line.served)}</td>
      <td class="number" data-label="Spend (${summary.currency})">${formatAmount(line.costMicros)}</td>
    </tr>`,
  );
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Requests per persona version"><table id="version-table" class="figures stacked">
    <caption class="visually-hidden">Requests and spend per persona version over the last ${summary.days.length} days</caption>
    <thead><tr><th scope="col">Persona</th><th scope="col" class="number">Version</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Served</th><th scope="col" class="number">Spend (${summary.currency})</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}

/**
 * The body of `/usage`: figures at a glance, the charts, the account's
 * personas with their live versions, the rate-limit windows of each key,
 * the table with its CSV download, and requests per persona version when
 * asked for (`versions`).
 */
export function usagePageBody(
  summary: UsageSummary,
  keys: KeyWindows[],
  now: number,
  personas: readonly LivePersona[] = [],
  versions?: readonly VersionUsage[],
): SafeHtml {
  const totalRequests = summary.lines.reduce((sum, line) => sum + line.requests, 0);
  const totalSpend = summary.lines.reduce((sum, line) => sum + line.costMicros, 0);
  const first = summary.days[0] ?? "";
  const last = summary.days.at(-1) ?? "";
  return html`<p class="lead">Your account's requests, spend, balance and rate limits over the last ${summary.days.length} days (${first} to ${last}, UTC).</p>
    <dl class="stats">
      <div class="stat"><dt>Balance now</dt><dd id="balance-now">${formatAmount(summary.balanceMicros)} ${summary.currency}</dd></div>
      <div class="stat"><dt>Held by requests in flight</dt><dd>${formatAmount(summary.reservedMicros)} ${summary.currency}</dd></div>
      <div class="stat"><dt>Requests, ${summary.days.length} days</dt><dd id="requests-total">${formatCount(totalRequests)}</dd></div>
      <div class="stat"><dt>Spend, ${summary.days.length} days</dt><dd id="spend-total">${formatAmount(totalSpend)} ${summary.currency}</dd></div>
    </dl>
    ${charts(summary)}
    <h2 id="personas">Your personas</h2>
    <p class="muted">Personas are refined in versions; the live version answers your requests and each response names it in its <code>Persona-Version</code> header.</p>
    ${personasSection(personas)}
    <h2 id="limits">Rate limits now</h2>
    ${limitsSection(keys, now)}
    <h2 id="figures">Figures</h2>
    <p><a class="button button-quiet" href="/usage.csv" download>Download CSV</a></p>
    ${usageTable(summary)}
    <h2 id="by-version">By persona version</h2>
    ${versionsSection(summary, versions)}`;
}
