/**
 * The tables of migration `0027_online_evaluation` (see
 * online-evaluation-migration.ts). Dialect-neutral like the rest of the
 * store: times as ISO 8601 UTC strings, days `YYYY-MM-DD` (UTC), money as
 * micro-units.
 */
export interface OnlineEvaluationTables {
  persona_online_scores: PersonaOnlineScoresTable;
  persona_online_samples: PersonaOnlineSamplesTable;
}

/** What sampling scored of one persona version on one day, within one canary or outside any. */
export interface PersonaOnlineScoresTable {
  persona_id: string;
  version: number;
  /** UTC day of the answers, `YYYY-MM-DD`. */
  day: string;
  /** The canary running when the answers were served (its start), `''` when none ran. */
  canary_started_at: string;
  /** Answers scored. */
  samples: number;
  /** Reference-free checks decided over those answers. */
  checks: number;
  /** Of them, passed. */
  checks_passed: number;
  /** Answers the judge scored. */
  judged: number;
  /** Sum over judged answers of their mean rubric score (1–5). */
  judge_score_sum: number;
  /** Judge calls that failed or answered unusably. */
  judge_errors: number;
  /** What the judge calls cost the operator, micro-units (never a customer). */
  judge_cost_micros: number;
}

/** A sampled message and answer, kept only when the operator opted in (`--keep-content`). */
export interface PersonaOnlineSamplesTable {
  id: string;
  persona_id: string;
  version: number;
  /** When the answer was served (ISO 8601 UTC). */
  at: string;
  /** `generate`, `personify` or `completions`. */
  endpoint: string;
  /** The message answered: the last user message, or the /personify source. */
  message: string;
  reply: string;
  /** The checks' verdicts as JSON (`[{ label, outcome, detail }]`). */
  checks: string;
  /** The judge's scores as JSON, or null when not judged. */
  judge_scores: string | null;
  /** When the retention run removes it (ISO 8601 UTC). */
  delete_after: string;
}
