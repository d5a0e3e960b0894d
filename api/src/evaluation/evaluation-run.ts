import type { CheckVerdict } from "./deterministic-checks.js";
import type { EvaluationCase, EvaluationCheck } from "./evaluation-suite.js";
import type { JudgeScores } from "./judge-prompt.js";

// The shapes of a run and its scorecard, in a module of their own: the runner
// builds them, the scorecard computes and renders them, the store keeps them
// (as the run's summary JSON), and none of those imports another for a type.

/** One check's result in one case run. */
export interface CheckResult {
  /** Index of the check within its case. */
  index: number;
  type: EvaluationCheck["type"];
  /** A short description ("length 3–80 words"). */
  label: string;
  outcome: CheckVerdict["outcome"];
  detail: string;
  /** Judge scores by dimension, for a judged check that was scored. */
  scores?: JudgeScores;
}

/** One run of one case: the reply (or the failure), its latency, cost and check results. */
export interface CaseRun {
  caseId: string;
  /** 1-based repetition. */
  repeat: number;
  task: EvaluationCase["task"];
  /** The normalized reply (/generate's final reply, /personify's text); null when the call failed. */
  reply: string | null;
  error: string | null;
  /** Which target answered, `upstream:model`. */
  answeredBy: string | null;
  latencyMs: number;
  /** The engine call's cost (operator's, micro-units). */
  costMicros: number;
  /** The judge calls' cost (operator's, micro-units). */
  judgeCostMicros: number;
  checks: CheckResult[];
}

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
  /** Why it did not pass, the first time it did not (in case order, then repeat). */
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

/** A finished run: what was evaluated, with which suite and judge, each case run and the scorecard. */
export interface EvaluationRun {
  /** Its side in `persona eval` (a run alone is the candidate); absent in runs stored before sides were named. */
  side?: EvaluationSide;
  personaId: string;
  version: number | null;
  route: string[];
  suite: { name: string; hash: string };
  /** The judge used, or null with the reason judged checks were skipped. */
  judge: { route: string; promptVersion: string; promptHash: string } | null;
  judgeSkipped: string | null;
  repeat: number;
  startedAt: string;
  finishedAt: string;
  /** Every case run, in case order within each repeat (whatever order they finished in). */
  cases: CaseRun[];
  scorecard: Scorecard;
}

/**
 * Which side of a `persona eval` a run is: the **candidate** is what is
 * under test (`--version`, `--route`) and is judged against the threshold;
 * the **baseline** (`--compare-version`, `--compare-route`) is only compared
 * with it.
 */
export type EvaluationSide = "candidate" | "baseline";
