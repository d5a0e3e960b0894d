import { sql } from "kysely";
import { deleteInBatches, deleteOldest } from "../storage/batched-delete.js";
import type { Database } from "../storage/store.js";
import type { PersonaOnlineSamplesTable } from "./online-evaluation-tables.js";

/** Sums of what sampling scored of one version on one day within one canary (or outside any). */
export interface OnlineScoreSums {
  personaId: string;
  version: number;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** The canary's start, `''` outside a canary. */
  canaryStartedAt: string;
  samples: number;
  checks: number;
  checksPassed: number;
  judged: number;
  /** Sum of the judged answers' mean rubric scores (1–5 each). */
  judgeScoreSum: number;
  judgeErrors: number;
  /** The judge calls' cost, the operator's, micro-units. */
  judgeCostMicros: number;
}

/** Online scores of a version over some days, as `persona status` and `persona eval-runs --live` show them. */
export interface OnlineScore {
  version: number;
  /** UTC day, or null for a total over days. */
  day: string | null;
  /** Answers scored. */
  samples: number;
  /** Percent (0–100) of the decided checks that passed; null without any. */
  checkPassRate: number | null;
  /** Mean of the judged answers' mean rubric scores (1–5); null without judged answers. */
  judgeMean: number | null;
  judged: number;
  judgeErrors: number;
  /** What judging cost the operator, micro-units (never billed to a customer). */
  judgeCostMicros: number;
}

function scoreOf(
  version: number,
  day: string | null,
  row: {
    samples: unknown;
    checks: unknown;
    checks_passed: unknown;
    judged: unknown;
    judge_score_sum: unknown;
    judge_errors: unknown;
    judge_cost_micros: unknown;
  },
): OnlineScore {
  const checks = Number(row.checks);
  const judged = Number(row.judged);
  return {
    version,
    day,
    samples: Number(row.samples),
    checkPassRate: checks === 0 ? null : (Number(row.checks_passed) / checks) * 100,
    judgeMean: judged === 0 ? null : Number(row.judge_score_sum) / judged,
    judged,
    judgeErrors: Number(row.judge_errors),
    judgeCostMicros: Number(row.judge_cost_micros),
  };
}

const SUMS = [
  sql<number>`sum(samples)`.as("samples"),
  sql<number>`sum(checks)`.as("checks"),
  sql<number>`sum(checks_passed)`.as("checks_passed"),
  sql<number>`sum(judged)`.as("judged"),
  sql<number>`sum(judge_score_sum)`.as("judge_score_sum"),
  sql<number>`sum(judge_errors)`.as("judge_errors"),
  sql<number>`cast(sum(judge_cost_micros) as bigint)`.as("judge_cost_micros"),
] as const;

/**
 * Stores and reads online evaluation's figures (`persona_online_scores`)
 * and kept samples (`persona_online_samples`, migration 0027). The
 * operator's records: nothing here touches an account's balance, limits or
 * usage.
 */
export class OnlineScoreStore {
  constructor(private readonly database: Database) {}

  /**
   * Adds sums to their rows (one upsert each, in one transaction): rows
   * are per persona, version, day and canary, so instances adding at once
   * add up.
   */
  async add(sums: readonly OnlineScoreSums[], samples: readonly PersonaOnlineSamplesTable[]) {
    if (sums.length === 0 && samples.length === 0) return;
    await this.database.transaction().execute(async (transaction) => {
      for (const sum of sums) {
        await transaction
          .insertInto("persona_online_scores")
          .values({
            persona_id: sum.personaId,
            version: sum.version,
            day: sum.day,
            canary_started_at: sum.canaryStartedAt,
            samples: sum.samples,
            checks: sum.checks,
            checks_passed: sum.checksPassed,
            judged: sum.judged,
            judge_score_sum: sum.judgeScoreSum,
            judge_errors: sum.judgeErrors,
            judge_cost_micros: sum.judgeCostMicros,
          })
          .onConflict((conflict) =>
            conflict.columns(["persona_id", "version", "day", "canary_started_at"]).doUpdateSet({
              samples: sql`persona_online_scores.samples + excluded.samples`,
              checks: sql`persona_online_scores.checks + excluded.checks`,
              checks_passed: sql`persona_online_scores.checks_passed + excluded.checks_passed`,
              judged: sql`persona_online_scores.judged + excluded.judged`,
              judge_score_sum: sql`persona_online_scores.judge_score_sum + excluded.judge_score_sum`,
              judge_errors: sql`persona_online_scores.judge_errors + excluded.judge_errors`,
              judge_cost_micros: sql`persona_online_scores.judge_cost_micros + excluded.judge_cost_micros`,
            }),
          )
          .execute();
      }
      if (samples.length > 0) {
        await transaction
          .insertInto("persona_online_samples")
          .values([...samples])
          .execute();
      }
    });
  }

  /** A persona's scores per version per day, newest day first, then by version. */
  async daily(personaId: string): Promise<OnlineScore[]> {
    const rows = await this.database
      .selectFrom("persona_online_scores")
      .select(["version", "day", ...SUMS])
      .where("persona_id", "=", personaId)
      .groupBy(["version", "day"])
      .orderBy("day", "desc")
      .orderBy("version")
      .execute();
    return rows.map((row) => scoreOf(Number(row.version), row.day, row));
  }

  /** A persona's scores per version of the answers served while the canary that started at `canaryStartedAt` ran. */
  async sinceCanary(personaId: string, canaryStartedAt: string): Promise<Map<number, OnlineScore>> {
    const rows = await this.database
      .selectFrom("persona_online_scores")
      .select(["version", ...SUMS])
      .where("persona_id", "=", personaId)
      .where("canary_started_at", "=", canaryStartedAt)
      .groupBy("version")
      .execute();
    return new Map(
      rows.map((row) => [Number(row.version), scoreOf(Number(row.version), null, row)]),
    );
  }

  /** A persona's kept samples, newest first (at most `limit`). */
  async samples(personaId: string, limit = 100): Promise<PersonaOnlineSamplesTable[]> {
    return this.database
      .selectFrom("persona_online_samples")
      .selectAll()
      .where("persona_id", "=", personaId)
      .orderBy("at", "desc")
      .limit(limit)
      .execute();
  }
}

/**
 * Removes kept samples whose `delete_after` has passed, at most
 * `batchSize` per statement (the retention run's step; also run when usage
 * retention is off, since kept content has its own retention).
 *
 * @param between - awaited after a full batch; resolves false to stop early
 * @returns the rows removed
 */
export async function removeExpiredSamples(
  database: Database,
  now: string,
  batchSize: number,
  between: () => Promise<boolean>,
): Promise<number> {
  const remove = deleteOldest(database, "persona_online_samples", "id", "delete_after", now);
  return (await deleteInBatches(remove, { batchSize, between })).rows;
}
