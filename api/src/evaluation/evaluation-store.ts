import { randomUUID } from "node:crypto";
import type { Database } from "../storage/database.js";
import type { EvaluationRun } from "./evaluation-run.js";
import { meetsThreshold } from "./scorecard.js";

/** A stored run as `persona eval-runs` lists it (the summary JSON left out). */
export interface StoredEvaluationRun {
  id: string;
  personaId: string;
  version: number | null;
  route: string[];
  suiteName: string;
  suiteHash: string;
  judge: string | null;
  startedAt: string;
  finishedAt: string;
  passRate: number | null;
  threshold: number;
  passed: boolean;
  /** The operator's cost of the run in micro-units. */
  costMicros: number;
}

/**
 * Stores and lists evaluation runs (table `evaluation_runs`, migration
 * 0011). Runs are the operator's records: nothing here touches an
 * account's balance, limits or usage.
 */
export class EvaluationStore {
  constructor(private readonly database: Database) {}

  /**
   * Stores a finished run with the threshold it was judged against.
   *
   * @returns the run's new ID
   */
  async save(run: EvaluationRun, threshold: number): Promise<string> {
    const id = randomUUID();
    await this.database
      .insertInto("evaluation_runs")
      .values({
        id,
        persona_id: run.personaId,
        version: run.version,
        route: JSON.stringify(run.route),
        suite_name: run.suite.name,
        suite_hash: run.suite.hash,
        judge: run.judge?.route ?? null,
        started_at: run.startedAt,
        finished_at: run.finishedAt,
        pass_rate: run.scorecard.passRate,
        threshold,
        passed: meetsThreshold(run, threshold) ? 1 : 0,
        cost_micros: run.scorecard.costMicros.total,
        summary: JSON.stringify(run),
      })
      .execute();
    return id;
  }

  /** A persona's runs, newest first. */
  async list(personaId: string): Promise<StoredEvaluationRun[]> {
    const rows = await this.database
      .selectFrom("evaluation_runs")
      .select([
        "id",
        "persona_id",
        "version",
        "route",
        "suite_name",
        "suite_hash",
        "judge",
        "started_at",
        "finished_at",
        "pass_rate",
        "threshold",
        "passed",
        "cost_micros",
      ])
      .where("persona_id", "=", personaId)
      .orderBy("started_at", "desc")
      .orderBy("id")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      personaId: row.persona_id,
      version: row.version === null ? null : Number(row.version),
      route: JSON.parse(row.route) as string[],
      suiteName: row.suite_name,
      suiteHash: row.suite_hash,
      judge: row.judge,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      passRate: row.pass_rate === null ? null : Number(row.pass_rate),
      threshold: Number(row.threshold),
      passed: Number(row.passed) === 1,
      costMicros: Number(row.cost_micros),
    }));
  }

  /** The full record of one run (scorecard and case results), or undefined. */
  async find(id: string): Promise<EvaluationRun | undefined> {
    const row = await this.database
      .selectFrom("evaluation_runs")
      .select("summary")
      .where("id", "=", id)
      .executeTakeFirst();
    return row === undefined ? undefined : (JSON.parse(row.summary) as EvaluationRun);
  }
}
