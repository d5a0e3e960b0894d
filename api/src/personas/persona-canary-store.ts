import type { Selectable } from "kysely";
import type { Database } from "../storage/store.js";
import { timeOrderedId } from "../storage/time-ordered-id.js";
import type { PersonaCanaryTerms } from "./persona.js";
import { lockPersona } from "./persona-lock.js";
import type { PersonasTable } from "./persona-tables.js";

/** What happened to a canary: started, stopped by the operator, stopped by itself, finished by a promotion. */
export type CanaryAction = "start" | "stop" | "auto_stop" | "finish";

/** One entry of a persona's canary history (`persona-admin persona status`). */
export interface CanaryEvent {
  /** When (ISO 8601 UTC). */
  at: string;
  action: CanaryAction;
  /** The canary's version. */
  version: number;
  /** Its share of traffic in percent. */
  percent: number | null;
  /** When the canary this event belongs to started (ISO 8601 UTC). */
  startedAt: string;
  /** The operator's login name; null for an automatic stop. */
  operator: string | null;
  /** A start's thresholds, an automatic stop's figures; null otherwise. */
  details: Record<string, unknown> | null;
}

/** How a canary is started (`persona-admin persona canary ID N --percent P …`). */
export interface CanaryStart {
  /** Share of traffic in percent: a whole number from 1 to 50. */
  percent: number;
  /** Percentage points the canary's error rate may exceed the live one's (default 5). */
  maxErrorRateIncrease?: number;
  /** Canary requests before its error rate is judged (default 50). */
  minRequests?: number;
  /** Who starts it (persona-admin: the operator's login name). */
  operator?: string | null;
  /**
   * Floor on the canary's online score, percent (0–100) of the sampled
   * answers' checks passed: it stops itself below it. Needs sampling on
   * (`persona sample`); absent: no floor.
   */
  minOnlineScore?: number | null;
  /** Floor on its judge's mean rubric score (1–5); absent: no floor. */
  minJudgeScore?: number | null;
  /** Sampled canary answers before a floor is judged (default {@link DEFAULT_MIN_SAMPLES}). */
  minSamples?: number;
  /** What a forced route check overrode (`--force`), kept in the start's history entry. */
  forced?: string;
}

/** The default margin of the automatic stop, in percentage points of error rate. */
export const DEFAULT_MAX_ERROR_RATE_INCREASE = 5;
/** The default number of canary requests before the automatic stop judges. */
export const DEFAULT_MIN_REQUESTS = 50;
/** The default number of sampled canary answers before its online score is judged. */
export const DEFAULT_MIN_SAMPLES = 20;
/** The largest share of traffic a canary may take, in percent. */
export const MAX_CANARY_PERCENT = 50;

/** Why a canary operation was refused; `code` names the case. */
export class PersonaCanaryError extends Error {
  constructor(
    readonly code:
      | "unknown_version"
      | "already_live"
      | "canary_running"
      | "no_canary"
      | "invalid_canary",
    message: string,
  ) {
    super(message);
    this.name = "PersonaCanaryError";
  }
}

/** A persona with a running canary, as the automatic stop reads it. */
export interface RunningCanary extends PersonaCanaryTerms {
  personaId: string;
  liveVersion: number;
}

/**
 * The canary terms of a `personas` row whose canary runs (`canary_version`
 * and `canary_started_at` set); a row from before `canary_min_samples`
 * reads {@link DEFAULT_MIN_SAMPLES}.
 */
export function canaryTermsOf(
  row: Pick<
    Selectable<PersonasTable>,
    | "canary_percent"
    | "canary_max_error_increase"
    | "canary_min_requests"
    | "canary_min_score"
    | "canary_min_judge_score"
    | "canary_min_samples"
  > & { canary_version: number | string; canary_started_at: string },
): PersonaCanaryTerms {
  return {
    version: Number(row.canary_version),
    percent: Number(row.canary_percent),
    startedAt: row.canary_started_at,
    maxErrorRateIncrease: Number(row.canary_max_error_increase),
    minRequests: Number(row.canary_min_requests),
    minOnlineScore: row.canary_min_score === null ? null : Number(row.canary_min_score),
    minJudgeScore: row.canary_min_judge_score === null ? null : Number(row.canary_min_judge_score),
    minSamples:
      row.canary_min_samples === null ? DEFAULT_MIN_SAMPLES : Number(row.canary_min_samples),
  };
}

type Executor = Pick<Database, "selectFrom" | "insertInto" | "updateTable">;

/** The `personas` columns of no canary. */
const NO_CANARY = {
  canary_version: null,
  canary_percent: null,
  canary_started_at: null,
  canary_max_error_increase: null,
  canary_min_requests: null,
  canary_min_score: null,
  canary_min_judge_score: null,
  canary_min_samples: null,
} as const;

async function recordEvent(
  executor: Executor,
  personaId: string,
  event: Omit<CanaryEvent, "details"> & { details?: Record<string, unknown> | null },
): Promise<void> {
  await executor
    .insertInto("persona_canary_events")
    .values({
      id: timeOrderedId(),
      persona_id: personaId,
      at: event.at,
      action: event.action,
      version: event.version,
      percent: event.percent,
      started_at: event.startedAt,
      operator: event.operator,
      details: event.details == null ? null : JSON.stringify(event.details),
    })
    .execute();
}

/**
 * Ends a persona's running canary because its version became live
 * (`promote`, or `rollback` to it), inside the caller's transaction: the
 * canary columns are cleared and a `finish` event recorded.
 *
 * @param row - the persona's row as locked by the caller, with the canary running
 */
export async function finishCanary(
  transaction: Executor,
  row: Selectable<PersonasTable>,
  now: string,
  operator: string | null,
): Promise<void> {
  if (row.canary_version === null || row.canary_started_at === null) return;
  await transaction.updateTable("personas").set(NO_CANARY).where("id", "=", row.id).execute();
  await recordEvent(transaction, row.id, {
    at: now,
    action: "finish",
    version: Number(row.canary_version),
    percent: row.canary_percent === null ? null : Number(row.canary_percent),
    startedAt: row.canary_started_at,
    operator,
  });
}

/**
 * Starts, stops and lists persona canaries. The state is the `personas`
 * row's canary columns (migration 0026), so a start or stop reaches every
 * instance through the change feed as a promotion does; every start and
 * stop is also a row of `persona_canary_events`, the canary history.
 */
export class PersonaCanaryStore {
  constructor(private readonly database: Database) {}

  /**
   * Starts a canary of `version` on `percent` % of the persona's traffic.
   *
   * @returns the start time (the canary's identity), or undefined when no persona has this ID
   * @throws {PersonaCanaryError} `invalid_canary` for a share outside 1–50 or a bad threshold;
   *   `unknown_version`; `already_live`; `canary_running` (stop it first)
   */
  async start(id: string, version: number, options: CanaryStart): Promise<string | undefined> {
    const { percent } = options;
    const maxIncrease = options.maxErrorRateIncrease ?? DEFAULT_MAX_ERROR_RATE_INCREASE;
    const minRequests = options.minRequests ?? DEFAULT_MIN_REQUESTS;
    const minOnlineScore = options.minOnlineScore ?? null;
    const minJudgeScore = options.minJudgeScore ?? null;
    const minSamples = options.minSamples ?? DEFAULT_MIN_SAMPLES;
    if (
      minOnlineScore !== null &&
      (!Number.isFinite(minOnlineScore) || minOnlineScore < 0 || minOnlineScore > 100)
    ) {
      throw new PersonaCanaryError("invalid_canary", "the online score floor is 0 to 100 percent");
    }
    if (
      minJudgeScore !== null &&
      (!Number.isFinite(minJudgeScore) || minJudgeScore < 1 || minJudgeScore > 5)
    ) {
      throw new PersonaCanaryError("invalid_canary", "the judge score floor is 1 to 5");
    }
    if (!Number.isSafeInteger(minSamples) || minSamples < 1) {
      throw new PersonaCanaryError(
        "invalid_canary",
        "the minimum samples must be a whole number from 1",
      );
    }
    if (!Number.isInteger(percent) || percent < 1 || percent > MAX_CANARY_PERCENT) {
      throw new PersonaCanaryError(
        "invalid_canary",
        `the share must be a whole number of percent from 1 to ${MAX_CANARY_PERCENT}`,
      );
    }
    if (!Number.isFinite(maxIncrease) || maxIncrease < 0 || maxIncrease > 100) {
      throw new PersonaCanaryError(
        "invalid_canary",
        "the error rate increase must be 0 to 100 percentage points",
      );
    }
    if (!Number.isSafeInteger(minRequests) || minRequests < 1) {
      throw new PersonaCanaryError(
        "invalid_canary",
        "the minimum requests must be a whole number from 1",
      );
    }
    const now = new Date().toISOString();
    return this.database.transaction().execute(async (transaction) => {
      const row = await lockPersona(transaction, id, now);
      if (row === undefined) return undefined;
      const versionRow = await transaction
        .selectFrom("persona_versions")
        .select("version")
        .where("persona_id", "=", id)
        .where("version", "=", version)
        .executeTakeFirst();
      if (versionRow === undefined) {
        throw new PersonaCanaryError("unknown_version", `persona ${id} has no version ${version}`);
      }
      if (Number(row.live_version) === version) {
        throw new PersonaCanaryError(
          "already_live",
          `version ${version} is the live version: a canary serves another one`,
        );
      }
      if (row.canary_version !== null) {
        throw new PersonaCanaryError(
          "canary_running",
          `a canary of version ${row.canary_version} is running: stop it first (persona canary ${id} --stop)`,
        );
      }
      await transaction
        .updateTable("personas")
        .set({
          canary_version: version,
          canary_percent: percent,
          canary_started_at: now,
          canary_max_error_increase: maxIncrease,
          canary_min_requests: minRequests,
          canary_min_score: minOnlineScore,
          canary_min_judge_score: minJudgeScore,
          canary_min_samples: minSamples,
        })
        .where("id", "=", id)
        .execute();
      await recordEvent(transaction, id, {
        at: now,
        action: "start",
        version,
        percent,
        startedAt: now,
        operator: options.operator ?? null,
        details: {
          maxErrorRateIncrease: maxIncrease,
          minRequests,
          ...(minOnlineScore === null ? {} : { minOnlineScore }),
          ...(minJudgeScore === null ? {} : { minJudgeScore }),
          ...(minOnlineScore === null && minJudgeScore === null ? {} : { minSamples }),
          ...(options.forced === undefined ? {} : { forced: options.forced }),
        },
      });
      return now;
    });
  }

  /**
   * Stops a persona's running canary (`persona canary ID --stop`); everyone is served the live version.
   *
   * @returns the stopped canary's version, or undefined when no persona has this ID
   * @throws {PersonaCanaryError} `no_canary` when none runs
   */
  async stop(id: string, operator: string | null = null): Promise<number | undefined> {
    const now = new Date().toISOString();
    return this.database.transaction().execute(async (transaction) => {
      const row = await lockPersona(transaction, id, now);
      if (row === undefined) return undefined;
      if (row.canary_version === null || row.canary_started_at === null) {
        throw new PersonaCanaryError("no_canary", `persona ${id} has no canary running`);
      }
      await transaction.updateTable("personas").set(NO_CANARY).where("id", "=", id).execute();
      await recordEvent(transaction, id, {
        at: now,
        action: "stop",
        version: Number(row.canary_version),
        percent: row.canary_percent === null ? null : Number(row.canary_percent),
        startedAt: row.canary_started_at,
        operator,
      });
      return Number(row.canary_version);
    });
  }

  /**
   * Stops one particular canary by itself (the automatic stop): only if it
   * is still the one that started at `canary.startedAt`, so two instances
   * stopping it at once stop it, and record it, once.
   *
   * @param details - the figures that caused the stop, kept with its event
   * @returns whether this call stopped it
   */
  async stopAutomatically(
    canary: RunningCanary,
    details: Record<string, unknown>,
  ): Promise<boolean> {
    const now = new Date().toISOString();
    return this.database.transaction().execute(async (transaction) => {
      const stopped = await transaction
        .updateTable("personas")
        .set({ ...NO_CANARY, updated_at: now })
        .where("id", "=", canary.personaId)
        .where("canary_started_at", "=", canary.startedAt)
        .where("canary_version", "=", canary.version)
        .executeTakeFirst();
      if (Number(stopped.numUpdatedRows) === 0) return false;
      await recordEvent(transaction, canary.personaId, {
        at: now,
        action: "auto_stop",
        version: canary.version,
        percent: canary.percent,
        startedAt: canary.startedAt,
        operator: null,
        details,
      });
      return true;
    });
  }

  /** The personas with a canary running, read past every cache. */
  async running(): Promise<RunningCanary[]> {
    const rows = await this.database
      .selectFrom("personas")
      .select([
        "id",
        "live_version",
        "canary_version",
        "canary_percent",
        "canary_started_at",
        "canary_max_error_increase",
        "canary_min_requests",
        "canary_min_score",
        "canary_min_judge_score",
        "canary_min_samples",
      ])
      .where("canary_version", "is not", null)
      .execute();
    return rows.flatMap((row) =>
      row.canary_version === null || row.canary_started_at === null
        ? []
        : [
            {
              personaId: row.id,
              liveVersion: Number(row.live_version),
              ...canaryTermsOf({
                ...row,
                canary_version: row.canary_version,
                canary_started_at: row.canary_started_at,
              }),
            },
          ],
    );
  }

  /** A persona's canary history, oldest first. */
  async events(id: string): Promise<CanaryEvent[]> {
    const rows = await this.database
      .selectFrom("persona_canary_events")
      .selectAll()
      .where("persona_id", "=", id)
      .orderBy("at")
      .orderBy("id")
      .execute();
    return rows.map((row) => ({
      at: row.at,
      action: row.action as CanaryAction,
      version: Number(row.version),
      percent: row.percent === null ? null : Number(row.percent),
      startedAt: row.started_at,
      operator: row.operator,
      details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
    }));
  }
}
