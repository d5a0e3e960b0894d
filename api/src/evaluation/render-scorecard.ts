import { formatMoney } from "../billing/money.js";
import type { CheckTally, EvaluationRun } from "./evaluation-run.js";
import {
  renderConversationComparison,
  renderConversations,
  simulatedUserLine,
} from "./render-conversations.js";
import { meetsThreshold, type ScorecardComparison } from "./scorecard.js";
import { marker, percent, points, renderTable, rowMarker, score } from "./scorecard-format.js";

// The table layout, where persona-admin's commands have found it.
export { renderTable } from "./scorecard-format.js";

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

/** The header lines of a run: who judges, and who plays the user of conversation cases. */
function judgeLines(run: EvaluationRun): string[] {
  const simulatedUser = simulatedUserLine(run);
  return simulatedUser === undefined ? [judgeLine(run)] : [judgeLine(run), simulatedUser];
}

/** The operator's cost line: engine, judge and (when there was one) simulated user. */
function costLine(run: EvaluationRun): string {
  const cost = run.scorecard.costMicros;
  const simulatedUser =
    run.simulatedUser === null || run.simulatedUser === undefined
      ? ""
      : `, simulated user ${formatMoney(cost.simulatedUser ?? 0)}`;
  return `operator cost ${formatMoney(cost.total)} (engine ${formatMoney(cost.engine)}, judge ${formatMoney(cost.judge)}${simulatedUser}), ${formatMoney(cost.perCaseRun)} per case run`;
}

/**
 * Renders one run's scorecard as text: per check (a conversation case's
 * over its turns), per dimension, per conversation case its turns, score
 * and drift, latency, cost, the verdict against the threshold, and why
 * judged checks or conversation cases were skipped when they were.
 */
export function renderScorecard(run: EvaluationRun, threshold: number): string {
  const card = run.scorecard;
  const lines = [
    suiteLine(run),
    describeSubject(run),
    ...judgeLines(run),
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
  const conversations = renderConversations(run);
  if (conversations !== "") lines.push("", conversations);
  lines.push(
    "",
    `latency p50 ${Math.round(card.latencyMs.p50)} ms, p95 ${Math.round(card.latencyMs.p95)} ms; failed calls ${card.failedCalls}`,
    costLine(run),
    verdictLine(run, threshold),
  );
  return lines.join("\n");
}

function verdictLine(run: EvaluationRun, threshold: number): string {
  const verdict = meetsThreshold(run, threshold) ? "PASS" : "FAIL";
  return `${verdict}: pass rate ${percent(run.scorecard.passRate)} (threshold ${percent(threshold)})`;
}

/** The legend printed under a side-by-side scorecard. */
export const COMPARISON_LEGEND = [
  "▲ the candidate is better than the baseline, ▼ the candidate is worse (lower pass rate or mean score; slower, costlier, more failed calls); ≠ only one side has a figure.",
  "Δ: candidate − baseline in percentage points (a rubric mean 1–5, and a conversation's in-character score, is scaled to 0–100: one score step is 25 points).",
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
    ...judgeLines(candidate),
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
  const conversations = renderConversationComparison(candidate, baseline, comparison);
  if (conversations !== "") lines.push("", conversations);
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
