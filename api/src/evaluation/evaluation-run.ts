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
  /** In a conversation case: the turn (1-based) whose reply this checked. */
  turn?: number;
}

/** One turn of a conversation case run: the user's message and the persona's reply. */
export interface TurnRun {
  /** 1-based. */
  turn: number;
  /** The user's message (the simulated user's, or the script's); null when the simulated user failed. */
  user: string | null;
  /** The persona's normalized reply; null when the turn failed. */
  reply: string | null;
  /** Why the turn failed (the simulated user's call, or the engine's); the conversation stops there. */
  error: string | null;
  /** Which target answered the persona's turn, `upstream:model`. */
  answeredBy: string | null;
  /** The engine call's latency in milliseconds. */
  latencyMs: number;
  /** The engine call's cost (operator's, micro-units). */
  costMicros: number;
  /** The simulated user's call's cost (operator's, micro-units). */
  simulatedUserCostMicros: number;
  /** The judge call's cost (operator's, micro-units). */
  judgeCostMicros: number;
  /** The judge's scores of the reply, by dimension (every dimension asked that turn); null when not judged. */
  scores: JudgeScores | null;
  /** Mean of the in-character dimensions' scores (1–5); null when not judged. */
  inCharacter: number | null;
  /** Why the reply has no scores although a judge is configured (the judge's failure). */
  judgeError: string | null;
}

/** The conversation of one conversation case run. */
export interface ConversationRun {
  /** Who spoke as the user: the simulated user's `upstream:model`, `script`, or null when skipped. */
  user: string | null;
  /** Turns the case asks for. */
  turnsPlanned: number;
  /** Why the conversation did not run (no simulated user and no script), or null. */
  skipped: string | null;
  /** The turns run, in order; fewer than planned when one failed. */
  turns: TurnRun[];
  /** Mean in-character score over the judged turns (1–5); null when none was judged. */
  inCharacter: number | null;
  /** The drift of the in-character score over the turns (conversation-drift.ts); null below two judged turns. */
  drift: number | null;
}

/**
 * One run of one case: the reply (or the failure), its latency, cost and
 * check results. A conversation case's run holds its turns in
 * `conversation`; its `checks` are every turn's (each with its `turn`), its
 * `reply` the last turn's, its `latencyMs` and `costMicros` the sums over
 * the turns, and `error` the failure that stopped it.
 */
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
  /** The simulated user's calls' cost (operator's, micro-units); absent in single-turn cases. */
  simulatedUserCostMicros?: number;
  checks: CheckResult[];
  /** A conversation case's turns; absent in single-turn cases. */
  conversation?: ConversationRun;
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
  /**
   * Mean over cases (a conversation's turns each count as one) of (highest −
   * lowest) score across repeats: how much the judge or model wavers.
   */
  repeatSpread: number | null;
}

/** One turn of a conversation case over the repeats (a per-turn row of the scorecard). */
export interface TurnTally {
  /** 1-based. */
  turn: number;
  /** Repeats whose conversation reached this turn. */
  runs: number;
  /** Check runs of this turn that passed, and that were decided (passed, failed or erred). */
  passed: number;
  decided: number;
  /** passed / decided; null when none was decided. */
  passRate: number | null;
  /** Mean in-character score of this turn over the repeats (1–5); null when never judged. */
  inCharacter: number | null;
  /** The first failure, failed check or judge error of this turn. */
  firstProblem: string | null;
}

/** A conversation case over the repeats: per-turn rows, overall figures and drift. */
export interface ConversationTally {
  caseId: string;
  /** Turns the case asks for. */
  turnsPlanned: number;
  /** Who spoke as the user (`upstream:model` or `script`); null when every repeat was skipped. */
  user: string | null;
  /** Why it was skipped (every repeat was), or null. */
  skipped: string | null;
  turns: TurnTally[];
  /** Passed check runs over decided ones, every turn and repeat. */
  passRate: number | null;
  /** Mean in-character score over every judged turn and repeat (1–5); null when none. */
  inCharacter: number | null;
  /**
   * Drift of the per-turn mean in-character score (the `turns` rows) over
   * the conversation, in score points (conversation-drift.ts); null below two judged turns.
   */
  drift: number | null;
  /** Repeats whose conversation stopped at a failed turn. */
  stopped: number;
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
  /** Operator's cost in micro-units: engine calls, judge calls, simulated user calls, and per case run. */
  costMicros: {
    engine: number;
    judge: number;
    /** Absent in runs stored before conversation cases. */
    simulatedUser?: number;
    total: number;
    perCaseRun: number;
  };
  /** Conversation cases, in suite order; absent in runs stored before conversation cases. */
  conversations?: ConversationTally[];
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
  /** The simulated user of conversation cases, or null; absent in runs stored before conversation cases. */
  simulatedUser?: { route: string; promptVersion: string } | null;
  /** Why conversation cases had no simulated user (the scripted ones ran their script, the others were skipped), or null. */
  simulatedUserSkipped?: string | null;
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
