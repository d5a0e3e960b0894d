import type {
  CaseRun,
  CheckTally,
  DimensionTally,
  EvaluationRun,
  Scorecard,
} from "./evaluation-run.js";
import type { EvaluationSuite } from "./evaluation-suite.js";

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

/** Whether a run reached the threshold (a run with no decided check does not). */
export function meetsThreshold(run: EvaluationRun, threshold: number): boolean {
  return run.scorecard.passRate !== null && run.scorecard.passRate >= threshold;
}
