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

/** Sums a measure of the lines per series and day. */
function seriesBy(
  summary: UsageSummary,
  keyOf: (line: UsageDayLine) => string,
  measure: (line: UsageDayLine) => number,
): ChartSeries[] {
  const dayIndex = new Map(summary.days.map((day, index) => [day, index]));
  const series = new Map<string, number[]>();
  for (const line of summary.lines) {
    const index = dayIndex.get(line.day);
    if (index === undefined) continue;
    const name = keyOf(line);
    let values = series.get(name);
    if (values === undefined) {
      values = summary.days.map(() => 0);
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

/** The five charts: requests and spend, by persona and by endpoint, and the balance. */
function charts(summary: UsageSummary): SafeHtml {
  const requests = (value: number) => formatQuantity(value, "request", "requests");
  const money = (value: number) => `${formatAmount(Math.round(value))} ${summary.currency}`;
  const byPersona = personaKey(summary);
  const byEndpoint = (line: UsageDayLine) => `/${line.endpoint}`;
  const common = { days: summary.days };
  return html`<div class="chart-grid">
    ${renderLineChart({
      ...common,
      id: "requests-by-persona",
      title: "Requests per day by persona",
      unit: "Requests",
      series: seriesBy(summary, byPersona, (line) => line.requests),
      format: requests,
    })}
    ${renderLineChart({
      ...common,
      id: "requests-by-endpoint",
      title: "Requests per day by endpoint",
      unit: "Requests",
      series: seriesBy(summary, byEndpoint, (line) => line.requests),
      format: requests,
    })}
    ${renderLineChart({
      ...common,
      id: "spend-by-persona",
      title: "Spend per day by persona",
      unit: summary.currency,
      scale: MICROS_PER_UNIT,
      series: seriesBy(summary, byPersona, (line) => line.costMicros),
      format: money,
    })}
    ${renderLineChart({
      ...common,
      id: "spend-by-endpoint",
      title: "Spend per day by endpoint",
      unit: summary.currency,
      scale: MICROS_PER_UNIT,
      series: seriesBy(summary, byEndpoint, (line) => line.costMicros),
      format: money,
    })}
    ${renderLineChart({
      ...common,
      id: "balance",
      title: "Balance at the end of each day",
      unit: summary.currency,
      scale: MICROS_PER_UNIT,
      series: [
        { name: "Balance", values: summary.balanceCourse.map((point) => point.balanceMicros) },
      ],
      format: money,
      area: true,
    })}
  </div>`;
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

/** A persona of the account with the version that answers its requests (issue 25). */
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
      <td data-label="Release note">${persona.releaseNote ?? ""}</td>
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
    <h2>Charts</h2>
    <p class="muted">Each line has its own symbol and dash as well as its colour; hover a point for its figure. On a narrow screen each chart opens at the latest day and scrolls back. The <a href="#figures">table below</a> lists every figure.</p>
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
