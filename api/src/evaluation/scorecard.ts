import { formatMoney } from "../billing/money.js";
import type { CaseRun, EvaluationRun } from "./evaluation-runner.js";
import type { EvaluationSuite } from "./evaluation-suite.js";

/** Tallies of one check over the repeats. */
export interface CheckTally {
  /** `caseId#index`: unique within the suite. */
  key: string;
  caseId: string;
  label: string;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  /** passed / (passed + failed + errors); null when every run skipped it. */
  passRate: number | null;
  /** Why it did not pass, the first time it did not. */
  firstProblem: string | null;
}

/** Judge scores of one rubric dimension over every case and repeat. */
export interface DimensionTally {
  name: string;
  /** Scores given. */
  count: number;
  /** Mean 1–5; null when never scored. */
  mean: number | null;
  /** Standard deviation of all its scores. */
  standardDeviation: number | null;
  /** Mean over cases of (highest − lowest) score across repeats: how much the judge or model wavers. */
  repeatSpread: number | null;
}

/**
 * The summary of a run (stored as the run's summary JSON): pass rate per
 * check and overall, mean judge score per dimension with its spread,
 * latency percentiles and the operator's cost.
 */
export interface Scorecard {
  /** Passed check runs over all that were decided (errors count against); null when none was. */
  passRate: number | null;
  checks: CheckTally[];
  dimensions: DimensionTally[];
  /** Engine call latency in milliseconds (successful and failed calls). */
  latencyMs: { p50: number; p95: number };
  /** Case runs whose engine call failed. */
  failedCalls: number;
  /** Operator's cost in micro-units: engine calls, judge calls, and per case run. */
  costMicros: { engine: number; judge: number; total: number; perCaseRun: number };
}

/** The nearest-rank percentile of sorted numbers; 0 for none. */
function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Aggregates case runs into a {@link Scorecard}. */
export function buildScorecard(suite: EvaluationSuite, runs: readonly CaseRun[]): Scorecard {
  const tallies = new Map<string, CheckTally>();
  for (const evaluationCase of suite.cases) {
    for (const [index] of evaluationCase.checks.entries()) {
      const key = `${evaluationCase.id}#${index}`;
      tallies.set(key, {
        key,
        caseId: evaluationCase.id,
        label: "",
        passed: 0,
        failed: 0,
        errors: 0,
        skipped: 0,
        passRate: null,
        firstProblem: null,
      });
    }
  }
  const scores = new Map<string, Map<string, number[]>>();
  for (const dimension of suite.judge.rubric) scores.set(dimension.name, new Map());
  for (const run of runs) {
    for (const check of run.checks) {
      const tally = tallies.get(`${run.caseId}#${check.index}`);
      if (tally === undefined) continue;
      tally.label = check.label;
      if (check.outcome === "pass") tally.passed += 1;
      else if (check.outcome === "fail") tally.failed += 1;
      else if (check.outcome === "error") tally.errors += 1;
      else tally.skipped += 1;
      if ((check.outcome === "fail" || check.outcome === "error") && tally.firstProblem === null) {
        tally.firstProblem = run.error ?? check.detail;
      }
      for (const [name, score] of Object.entries(check.scores ?? {})) {
        const byCase = scores.get(name);
        if (byCase === undefined) continue;
        byCase.set(run.caseId, [...(byCase.get(run.caseId) ?? []), score]);
      }
    }
  }
  let passed = 0;
  let decided = 0;
  for (const tally of tallies.values()) {
    const counted = tally.passed + tally.failed + tally.errors;
    tally.passRate = counted === 0 ? null : tally.passed / counted;
    passed += tally.passed;
    decided += counted;
  }
  const dimensions: DimensionTally[] = [...scores.entries()].map(([name, byCase]) => {
    const all = [...byCase.values()].flat();
    const average = mean(all);
    const variance = average === null ? null : mean(all.map((score) => (score - average) ** 2));
    return {
      name,
      count: all.length,
      mean: average,
      standardDeviation: variance === null ? null : Math.sqrt(variance),
      repeatSpread: mean([...byCase.values()].map((list) => Math.max(...list) - Math.min(...list))),
    };
  });
  const latencies = runs.map((run) => run.latencyMs).sort((left, right) => left - right);
  const engine = runs.reduce((sum, run) => sum + run.costMicros, 0);
  const judge = runs.reduce((sum, run) => sum + run.judgeCostMicros, 0);
  return {
    passRate: decided === 0 ? null : passed / decided,
    checks: [...tallies.values()],
    dimensions,
    latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
    failedCalls: runs.filter((run) => run.error !== null).length,
    costMicros: {
      engine,
      judge,
      total: engine + judge,
      perCaseRun: runs.length === 0 ? 0 : Math.round((engine + judge) / runs.length),
    },
  };
}

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

/** Whether a run reached the threshold (a run with no decided check does not). */
export function meetsThreshold(run: EvaluationRun, threshold: number): boolean {
  return run.scorecard.passRate !== null && run.scorecard.passRate >= threshold;
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
