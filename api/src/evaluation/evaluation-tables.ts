/**
 * The table of migration `0011_evaluation_runs`:
 * one row per run of an evaluation suite. Dialect-neutral like the rest of
 * the store: times as ISO 8601 UTC strings, money as micro-units.
 */
export interface EvaluationTables {
  evaluation_runs: EvaluationRunsTable;
}

/** A stored evaluation run. */
export interface EvaluationRunsTable {
  id: string;
  persona_id: string;
  /** The persona version evaluated; null for the live persona of a store without versions. */
  version: number | null;
  /** The route the cases ran along, as JSON (`["upstream:model", …]`). */
  route: string;
  suite_name: string;
  /** SHA-256 (hex) of the suite file. */
  suite_hash: string;
  /** The judge `upstream:model`, or null when judged checks were skipped. */
  judge: string | null;
  started_at: string;
  finished_at: string;
  /** Overall pass rate 0–1; null when no check was decided. */
  pass_rate: number | null;
  threshold: number;
  /** 1 when the pass rate reached the threshold. */
  passed: number;
  /** The operator's cost of the run (engine and judge calls), micro-units. */
  cost_micros: number;
  /** The run's scorecard and case results as JSON (see evaluation-runner.ts `EvaluationRun`). */
  summary: string;
}
