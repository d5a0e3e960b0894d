import { formatMoney } from "../billing/money.js";
import type { CheckTally, EvaluationRun } from "./evaluation-run.js";
import { type ComparedRow, meetsThreshold, type ScorecardComparison } from "./scorecard.js";

function percent(rate: number | null): string {
  if (rate === null) return "–";
  const value = rate * 100;
  return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
}

function score(value: number | null, digits = 2): string {
  return value === null ? "–" : value.toFixed(digits);
}

/** Percentage points with their sign ("+12.5", "-100", "0"); "–" for none. */
function points(value: number | null): string {
  if (value === null) return "–";
  if (value === 0) return "0";
  const magnitude = Math.abs(value);
  return `${value > 0 ? "+" : "-"}${Number.isInteger(magnitude) ? magnitude : magnitude.toFixed(1)}`;
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

function suiteLine(run: EvaluationRun): string {
  return `suite ${run.suite.name} (${run.suite.hash.slice(0, 12)}), ${run.repeat} repeat${run.repeat === 1 ? "" : "s"}`;
}

function judgeLine(run: EvaluationRun): string {
  return run.judge === null
    ? `judged checks skipped: ${run.judgeSkipped ?? "none in the suite"}`
    : `judge ${run.judge.route}, prompt ${run.judge.promptVersion} (${run.judge.promptHash})`;
}

/**
 * Renders one run's scorecard as text: per check, per dimension, latency,
 * cost, the verdict against the threshold, and why judged checks were
 * skipped when they were.
 */
export function renderScorecard(run: EvaluationRun, threshold: number): string {
  const card = run.scorecard;
  const lines = [
    suiteLine(run),
    describeSubject(run),
    judgeLine(run),
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

/**
 * The marker of a difference, relative to the baseline: "▲" the candidate
 * is better, "▼" worse, "" no difference, "≠" only one side has a figure.
 * `delta` is candidate − baseline where higher is better.
 */
function marker(delta: number | null, candidate: unknown, baseline: unknown): string {
  if (delta === null) return candidate === baseline ? "" : "≠";
  return delta > 0 ? "▲" : delta < 0 ? "▼" : "";
}

function rowMarker(row: ComparedRow): string {
  const sign = marker(row.delta, row.candidate, row.baseline);
  return row.regressed ? `${sign} regressed` : sign;
}

/** The legend printed under a side-by-side scorecard. */
export const COMPARISON_LEGEND = [
  "▲ the candidate is better than the baseline, ▼ the candidate is worse (lower pass rate or mean score; slower, costlier, more failed calls); ≠ only one side has a figure.",
  "Δ: candidate − baseline in percentage points (a rubric mean 1–5 is scaled to 0–100: one score step is 25 points).",
].join("\n");

/**
 * Renders a candidate's run beside its baseline's (two runs of one suite,
 * interleaved: another version or another route) as text: every check's
 * pass rate and first problem, every dimension's mean, latency, cost and
 * failed calls in a candidate and a baseline column, differences marked
 * relative to the baseline (legend {@link COMPARISON_LEGEND}), the
 * regressions beyond `--max-regression`, and the verdicts: the candidate's
 * against the threshold, the baseline's for information only.
 */
export function renderComparison(
  candidate: EvaluationRun,
  baseline: EvaluationRun,
  threshold: number,
  comparison: ScorecardComparison,
): string {
  const c = candidate.scorecard;
  const b = baseline.scorecard;
  const candidateTallies = new Map(c.checks.map((tally) => [tally.key, tally]));
  const baselineTallies = new Map(b.checks.map((tally) => [tally.key, tally]));
  const candidateDimensions = new Map(c.dimensions.map((dimension) => [dimension.name, dimension]));
  const baselineDimensions = new Map(b.dimensions.map((dimension) => [dimension.name, dimension]));
  const lines = [
    `${suiteLine(candidate)}; both sides interleaved case by case`,
    `candidate: ${describeSubject(candidate)}`,
    `baseline: ${describeSubject(baseline)}`,
    judgeLine(candidate),
    "",
    renderTable([
      [
        "check",
        "candidate",
        "baseline",
        "Δ",
        "",
        "candidate's first problem",
        "baseline's first problem",
      ],
      ...comparison.checks.map((row) => [
        row.label,
        percent(candidateTallies.get(row.key)?.passRate ?? null),
        percent(baselineTallies.get(row.key)?.passRate ?? null),
        points(row.delta),
        rowMarker(row),
        candidateTallies.get(row.key)?.firstProblem ?? "",
        baselineTallies.get(row.key)?.firstProblem ?? "",
      ]),
    ]),
  ];
  if (comparison.dimensions.length > 0) {
    lines.push(
      "",
      renderTable([
        ["dimension", "candidate mean ± sd", "baseline mean ± sd", "Δ", ""],
        ...comparison.dimensions.map((row) => {
          const mine = candidateDimensions.get(row.key);
          const theirs = baselineDimensions.get(row.key);
          return [
            row.label,
            `${score(mine?.mean ?? null)} ± ${score(mine?.standardDeviation ?? null)}`,
            `${score(theirs?.mean ?? null)} ± ${score(theirs?.standardDeviation ?? null)}`,
            points(row.delta),
            rowMarker(row),
          ];
        }),
      ]),
    );
  }
  // Lower is better for these: the candidate is better when its figure is smaller.
  const lowerBetter = (mine: number, theirs: number) => marker(theirs - mine, mine, theirs);
  const passRates = c.passRate === null || b.passRate === null ? null : c.passRate - b.passRate;
  lines.push(
    "",
    renderTable([
      ["", "candidate", "baseline", ""],
      [
        "pass rate",
        percent(c.passRate),
        percent(b.passRate),
        marker(passRates, c.passRate, b.passRate),
      ],
      [
        "latency p50",
        `${Math.round(c.latencyMs.p50)} ms`,
        `${Math.round(b.latencyMs.p50)} ms`,
        lowerBetter(Math.round(c.latencyMs.p50), Math.round(b.latencyMs.p50)),
      ],
      [
        "latency p95",
        `${Math.round(c.latencyMs.p95)} ms`,
        `${Math.round(b.latencyMs.p95)} ms`,
        lowerBetter(Math.round(c.latencyMs.p95), Math.round(b.latencyMs.p95)),
      ],
      [
        "cost per case run",
        formatMoney(c.costMicros.perCaseRun),
        formatMoney(b.costMicros.perCaseRun),
        lowerBetter(c.costMicros.perCaseRun, b.costMicros.perCaseRun),
      ],
      [
        "failed calls",
        String(c.failedCalls),
        String(b.failedCalls),
        lowerBetter(c.failedCalls, b.failedCalls),
      ],
    ]),
    "",
    COMPARISON_LEGEND,
    "",
    `candidate ${verdictLine(candidate, threshold)}`,
    `baseline (compared, not judged): pass rate ${percent(b.passRate)}, ${meetsThreshold(baseline, threshold) ? "at or above" : "below"} the threshold ${percent(threshold)}`,
  );
  if (comparison.maxRegression !== null) {
    lines.push(regressionLine(comparison));
  }
  return lines.join("\n");
}

/**
 * The regressions line of a comparison with `--max-regression`: "none", or
 * each regressed row with its difference in points.
 */
export function regressionLine(comparison: ScorecardComparison): string {
  const allowed =
    (comparison.maxRegression ?? 0) === 0
      ? "any drop below the baseline"
      : `${comparison.maxRegression} points or more below the baseline`;
  return comparison.regressions.length === 0
    ? `candidate regressions (${allowed}): none`
    : `candidate regressions (${allowed}): ${comparison.regressions
        .map((row) => `${row.label} ${points(row.delta)}`)
        .join("; ")}`;
}
