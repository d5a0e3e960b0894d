import { formatMoney } from "../billing/money.js";
import type { CheckTally, EvaluationRun } from "./evaluation-run.js";
import { meetsThreshold } from "./scorecard.js";

function percent(rate: number | null): string {
  if (rate === null) return "–";
  const value = rate * 100;
  return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
}

function score(value: number | null, digits = 2): string {
  return value === null ? "–" : value.toFixed(digits);
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

function counts(tally: CheckTally): string {
  const parts = [`${tally.passed}/${tally.passed + tally.failed + tally.errors}`];
  if (tally.errors > 0) parts.push(`${tally.errors} error${tally.errors === 1 ? "" : "s"}`);
  if (tally.skipped > 0) parts.push(`${tally.skipped} skipped`);
  return parts.join(", ");
}

/** The title line of a run: persona, version, route. */
export function describeSubject(
  run: Pick<EvaluationRun, "personaId" | "version" | "route">,
): string {
  const version = run.version === null ? "live" : `version ${run.version}`;
  return `${run.personaId} (${version}) along ${run.route.join(" → ")}`;
}

/**
 * Renders one run's scorecard as text: per check, per dimension, latency,
 * cost, the verdict against the threshold, and why judged checks were
 * skipped when they were.
 */
export function renderScorecard(run: EvaluationRun, threshold: number): string {
  const card = run.scorecard;
  const lines = [
    `suite ${run.suite.name} (${run.suite.hash.slice(0, 12)}), ${run.repeat} repeat${run.repeat === 1 ? "" : "s"}`,
    describeSubject(run),
    run.judge === null
      ? `judged checks skipped: ${run.judgeSkipped ?? "none in the suite"}`
      : `judge ${run.judge.route}, prompt ${run.judge.promptVersion} (${run.judge.promptHash})`,
    "",
    renderTable([
      ["check", "pass rate", "runs", "first problem"],
      ...card.checks.map((tally) => [
        `${tally.caseId} › ${tally.label}`,
        percent(tally.passRate),
        counts(tally),
        tally.firstProblem ?? "",
      ]),
    ]),
  ];
  if (card.dimensions.some((dimension) => dimension.count > 0)) {
    lines.push(
      "",
      renderTable([
        ["dimension", "mean", "sd", "repeat spread", "scores"],
        ...card.dimensions.map((dimension) => [
          dimension.name,
          score(dimension.mean),
          score(dimension.standardDeviation),
          score(dimension.repeatSpread),
          String(dimension.count),
        ]),
      ]),
    );
  }
  lines.push(
    "",
    `latency p50 ${Math.round(card.latencyMs.p50)} ms, p95 ${Math.round(card.latencyMs.p95)} ms; failed calls ${card.failedCalls}`,
    `operator cost ${formatMoney(card.costMicros.total)} (engine ${formatMoney(card.costMicros.engine)}, judge ${formatMoney(card.costMicros.judge)}), ${formatMoney(card.costMicros.perCaseRun)} per case run`,
    verdictLine(run, threshold),
  );
  return lines.join("\n");
}

function verdictLine(run: EvaluationRun, threshold: number): string {
  const verdict = meetsThreshold(run, threshold) ? "PASS" : "FAIL";
  return `${verdict}: pass rate ${percent(run.scorecard.passRate)} (threshold ${percent(threshold)})`;
}

/** "▲" when b is better, "▼" when worse, "" when equal (within `epsilon`). */
function marker(a: number | null, b: number | null, epsilon = 1e-9): string {
  if (a === null || b === null) return a === b ? "" : "≠";
  if (Math.abs(a - b) <= epsilon) return "";
  return b > a ? "▲" : "▼";
}

/**
 * Renders two runs of the same suite side by side (a baseline and a
 * candidate: another route, or another version): every check's and
 * dimension's figures in two columns, differences marked ▲ (the candidate
 * better) or ▼ (worse).
 */
export function renderComparison(
  baseline: EvaluationRun,
  candidate: EvaluationRun,
  threshold: number,
): string {
  const a = baseline.scorecard;
  const b = candidate.scorecard;
  const candidateChecks = new Map(b.checks.map((tally) => [tally.key, tally]));
  const candidateDimensions = new Map(b.dimensions.map((dimension) => [dimension.name, dimension]));
  const lines = [
    `suite ${baseline.suite.name} (${baseline.suite.hash.slice(0, 12)}), ${baseline.repeat} repeat${baseline.repeat === 1 ? "" : "s"}`,
    `A: ${describeSubject(baseline)}`,
    `B: ${describeSubject(candidate)}`,
    baseline.judge === null
      ? `judged checks skipped: ${baseline.judgeSkipped ?? "none in the suite"}`
      : `judge ${baseline.judge.route}, prompt ${baseline.judge.promptVersion} (${baseline.judge.promptHash})`,
    "",
    renderTable([
      ["check", "A", "B", ""],
      ...a.checks.map((tally) => {
        const other = candidateChecks.get(tally.key);
        return [
          `${tally.caseId} › ${tally.label}`,
          percent(tally.passRate),
          percent(other?.passRate ?? null),
          marker(tally.passRate, other?.passRate ?? null),
        ];
      }),
    ]),
  ];
  if ([...a.dimensions, ...b.dimensions].some((dimension) => dimension.count > 0)) {
    lines.push(
      "",
      renderTable([
        ["dimension", "A mean ± sd", "B mean ± sd", ""],
        ...a.dimensions.map((dimension) => {
          const other = candidateDimensions.get(dimension.name);
          return [
            dimension.name,
            `${score(dimension.mean)} ± ${score(dimension.standardDeviation)}`,
            `${score(other?.mean ?? null)} ± ${score(other?.standardDeviation ?? null)}`,
            marker(dimension.mean, other?.mean ?? null, 0.005),
          ];
        }),
      ]),
    );
  }
  lines.push(
    "",
    renderTable([
      ["", "A", "B", ""],
      ["pass rate", percent(a.passRate), percent(b.passRate), marker(a.passRate, b.passRate)],
      [
        "latency p50",
        `${Math.round(a.latencyMs.p50)} ms`,
        `${Math.round(b.latencyMs.p50)} ms`,
        marker(-Math.round(a.latencyMs.p50), -Math.round(b.latencyMs.p50)),
      ],
      [
        "latency p95",
        `${Math.round(a.latencyMs.p95)} ms`,
        `${Math.round(b.latencyMs.p95)} ms`,
        marker(-Math.round(a.latencyMs.p95), -Math.round(b.latencyMs.p95)),
      ],
      [
        "cost per case run",
        formatMoney(a.costMicros.perCaseRun),
        formatMoney(b.costMicros.perCaseRun),
        marker(-a.costMicros.perCaseRun, -b.costMicros.perCaseRun),
      ],
      [
        "failed calls",
        String(a.failedCalls),
        String(b.failedCalls),
        marker(-a.failedCalls, -b.failedCalls),
      ],
    ]),
    "",
    `A ${verdictLine(baseline, threshold)}`,
    `B ${verdictLine(candidate, threshold)}`,
  );
  return lines.join("\n");
}
