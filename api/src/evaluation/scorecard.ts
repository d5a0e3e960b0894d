import { conversationDrift } from "./conversation-drift.js";
import type {
  CaseRun,
  CheckResult,
  CheckTally,
  ConversationTally,
  DimensionTally,
  EvaluationRun,
  Scorecard,
  TurnTally,
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

/**
 * Why a check of a run did not pass: the call's failure, or the check's
 * detail; in a conversation led by its turn ("turn 3: …"), a turn that
 * failed giving its own failure.
 */
function problemOf(run: CaseRun, check: CheckResult): string {
  if (check.turn === undefined) return run.error ?? check.detail;
  const turn = run.conversation?.turns.find((record) => record.turn === check.turn);
  return `turn ${check.turn}: ${turn?.error ?? check.detail}`;
}

/** Latencies of a run's engine calls: one, or a conversation's every turn that called the engine. */
function engineLatencies(run: CaseRun): number[] {
  if (run.conversation === undefined) return [run.latencyMs];
  return run.conversation.turns
    .filter((record) => record.user !== null)
    .map((record) => record.latencyMs);
}

/** Whether a run's engine call failed (a conversation's: at its failed turn). */
function engineFailed(run: CaseRun): boolean {
  if (run.conversation === undefined) return run.error !== null;
  return run.conversation.turns.some((record) => record.user !== null && record.error !== null);
}

/**
 * Tallies a conversation case's runs: per turn (over the repeats) the
 * checks' pass rate, the mean in-character score and the first problem;
 * overall the pass rate, the mean in-character score, and the drift of the
 * per-turn means.
 */
function tallyConversation(
  caseId: string,
  turnsPlanned: number,
  runs: readonly CaseRun[],
): ConversationTally {
  const turns: TurnTally[] = [];
  for (let turn = 1; turn <= turnsPlanned; turn++) {
    const row: TurnTally = {
      turn,
      runs: 0,
      passed: 0,
      decided: 0,
      passRate: null,
      inCharacter: null,
      firstProblem: null,
    };
    const scores: number[] = [];
    for (const run of runs) {
      const record = run.conversation?.turns.find((item) => item.turn === turn);
      if (record === undefined) continue;
      row.runs += 1;
      if (record.inCharacter !== null) scores.push(record.inCharacter);
      for (const check of run.checks) {
        if (check.turn !== turn || check.outcome === "skipped") continue;
        row.decided += 1;
        if (check.outcome === "pass") row.passed += 1;
        else row.firstProblem ??= record.error ?? `${check.label}: ${check.detail}`;
      }
      if (record.judgeError !== null) row.firstProblem ??= record.judgeError;
    }
    row.passRate = row.decided === 0 ? null : row.passed / row.decided;
    row.inCharacter = mean(scores);
    turns.push(row);
  }
  const passed = turns.reduce((sum, row) => sum + row.passed, 0);
  const decided = turns.reduce((sum, row) => sum + row.decided, 0);
  const every = runs.flatMap(
    (run) =>
      run.conversation?.turns.flatMap((record) =>
        record.inCharacter === null ? [] : [record.inCharacter],
      ) ?? [],
  );
  const ran = runs.filter((run) => run.conversation?.skipped === null);
  return {
    caseId,
    turnsPlanned,
    user: ran[0]?.conversation?.user ?? null,
    skipped: ran.length === 0 ? (runs[0]?.conversation?.skipped ?? null) : null,
    turns,
    passRate: decided === 0 ? null : passed / decided,
    inCharacter: mean(every),
    drift: conversationDrift(
      turns.flatMap((row) =>
        row.inCharacter === null ? [] : [{ turn: row.turn, score: row.inCharacter }],
      ),
    ),
    stopped: runs.filter((run) => run.error !== null).length,
  };
}

/**
 * Aggregates case runs into a {@link Scorecard}. A check's first problem is
 * that of the first run (in the order of `runs`) where it failed or erred;
 * a conversation case's checks count once per turn.
 */
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
        tally.firstProblem = problemOf(run, check);
      }
      // A conversation's turns are apart: the spread is over repeats of one turn.
      const where = check.turn === undefined ? run.caseId : `${run.caseId}#${check.turn}`;
      for (const [name, score] of Object.entries(check.scores ?? {})) {
        const byCase = scores.get(name);
        if (byCase === undefined) continue;
        byCase.set(where, [...(byCase.get(where) ?? []), score]);
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
  const latencies = runs.flatMap(engineLatencies).sort((left, right) => left - right);
  const engine = runs.reduce((sum, run) => sum + run.costMicros, 0);
  const judge = runs.reduce((sum, run) => sum + run.judgeCostMicros, 0);
  const simulatedUser = runs.reduce((sum, run) => sum + (run.simulatedUserCostMicros ?? 0), 0);
  const total = engine + judge + simulatedUser;
  const conversations = suite.cases.flatMap((item) =>
    item.task === "conversation"
      ? [
          tallyConversation(
            item.id,
            item.conversation.turns,
            runs.filter((run) => run.caseId === item.id),
          ),
        ]
      : [],
  );
  return {
    passRate: decided === 0 ? null : passed / decided,
    checks: [...tallies.values()],
    dimensions,
    latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
    failedCalls: runs.filter(engineFailed).length,
    costMicros: {
      engine,
      judge,
      simulatedUser,
      total,
      perCaseRun: runs.length === 0 ? 0 : Math.round(total / runs.length),
    },
    conversations,
  };
}

/** Whether a run reached the threshold (a run with no decided check does not). */
export function meetsThreshold(run: Pick<EvaluationRun, "scorecard">, threshold: number): boolean {
  return run.scorecard.passRate !== null && run.scorecard.passRate >= threshold;
}

/**
 * A rubric dimension's mean judge score (1–5) on the percent scale checks'
 * pass rates use: 1 is 0, 5 is 100, so one whole score step is 25 points.
 */
export function rubricPercent(meanScore: number): number {
  return ((meanScore - 1) / 4) * 100;
}

/**
 * Differences smaller than these (in percentage points) are no difference:
 * floating-point noise for pass rates; for rubric means, what the scorecard's
 * two decimals cannot show (0.005 of a score).
 */
const CHECK_EPSILON_POINTS = 1e-6;
const DIMENSION_EPSILON_POINTS = rubricPercent(1.005);

/**
 * One row of a comparison: a check, a rubric dimension, or a conversation
 * case's in-character score, both sides on the percent scale.
 */
export interface ComparedRow {
  kind: "check" | "dimension" | "conversation";
  /** The check's `caseId#index`, the dimension's name, or the conversation case's ID. */
  key: string;
  /** `caseId › check label`, the dimension's name, or `caseId › in-character`. */
  label: string;
  /**
   * The candidate's figure in percent: a check's pass rate, a dimension's
   * or a conversation's mean score by {@link rubricPercent}; null when never
   * decided or scored.
   */
  candidate: number | null;
  /** The baseline's figure, as `candidate`. */
  baseline: number | null;
  /**
   * Candidate − baseline in percentage points (positive: the candidate is
   * better); 0 within the rounding the scorecard shows; null when a side has
   * no figure.
   */
  delta: number | null;
  /** The candidate is below the baseline by at least the comparison's `maxRegression`. */
  regressed: boolean;
}

/** A candidate's scorecard compared with its baseline's, row by row. */
export interface ScorecardComparison {
  checks: ComparedRow[];
  /** Rubric dimensions scored on at least one side. */
  dimensions: ComparedRow[];
  /** Conversation cases' mean in-character scores, scored on at least one side. */
  conversations: ComparedRow[];
  /** The regression in points that fails the gate, or null when none was set. */
  maxRegression: number | null;
  /** Rows (checks, dimensions, then conversations) that regressed by at least `maxRegression`. */
  regressions: ComparedRow[];
}

function compareRow(
  kind: ComparedRow["kind"],
  key: string,
  label: string,
  candidate: number | null,
  baseline: number | null,
  maxRegression: number | null,
): ComparedRow {
  // A conversation's score is a rubric mean too.
  const epsilon = kind === "check" ? CHECK_EPSILON_POINTS : DIMENSION_EPSILON_POINTS;
  const raw = candidate === null || baseline === null ? null : candidate - baseline;
  const delta = raw === null ? null : Math.abs(raw) < epsilon ? 0 : raw;
  return {
    kind,
    key,
    label,
    candidate,
    baseline,
    delta,
    // Strictly below the baseline, and by at least the points allowed; a
    // side with no figure (every run skipped) cannot regress.
    regressed:
      maxRegression !== null &&
      delta !== null &&
      delta < 0 &&
      -delta >= maxRegression - CHECK_EPSILON_POINTS,
  };
}

/**
 * Compares a candidate's scorecard with its baseline's (two runs of one
 * suite): every check's pass rate (a conversation's checks over its turns),
 * every scored rubric dimension's mean and every conversation case's mean
 * in-character score, all in percent, and which rows regressed.
 *
 * @param maxRegression - percentage points: a row of the candidate that far
 *   or further below the baseline's (and below at all) is a regression;
 *   null marks none
 */
export function compareScorecards(
  candidate: Scorecard,
  baseline: Scorecard,
  maxRegression: number | null,
): ScorecardComparison {
  const baselineChecks = new Map(baseline.checks.map((tally) => [tally.key, tally]));
  const baselineDimensions = new Map(
    baseline.dimensions.map((dimension) => [dimension.name, dimension]),
  );
  const percentOf = (rate: number | null | undefined) =>
    rate === null || rate === undefined ? null : rate * 100;
  const rubricOf = (score: number | null | undefined) =>
    score === null || score === undefined ? null : rubricPercent(score);
  const checks = candidate.checks.map((tally) =>
    compareRow(
      "check",
      tally.key,
      `${tally.caseId} › ${tally.label}`,
      percentOf(tally.passRate),
      percentOf(baselineChecks.get(tally.key)?.passRate),
      maxRegression,
    ),
  );
  const dimensions = candidate.dimensions
    .filter(
      (dimension) =>
        dimension.count > 0 || (baselineDimensions.get(dimension.name)?.count ?? 0) > 0,
    )
    .map((dimension) =>
      compareRow(
        "dimension",
        dimension.name,
        dimension.name,
        rubricOf(dimension.mean),
        rubricOf(baselineDimensions.get(dimension.name)?.mean),
        maxRegression,
      ),
    );
  const baselineConversations = new Map(
    (baseline.conversations ?? []).map((tally) => [tally.caseId, tally]),
  );
  const conversations = (candidate.conversations ?? [])
    .filter(
      (tally) =>
        tally.inCharacter !== null ||
        (baselineConversations.get(tally.caseId)?.inCharacter ?? null) !== null,
    )
    .map((tally) =>
      compareRow(
        "conversation",
        tally.caseId,
        `${tally.caseId} › in-character`,
        rubricOf(tally.inCharacter),
        rubricOf(baselineConversations.get(tally.caseId)?.inCharacter),
        maxRegression,
      ),
    );
  return {
    checks,
    dimensions,
    conversations,
    maxRegression,
    regressions: [...checks, ...dimensions, ...conversations].filter((row) => row.regressed),
  };
}
