import type { Logger } from "../logging/logger.js";
import type { OnlineScore, OnlineScoreStore } from "../online-evaluation/online-score-store.js";
import type { Database } from "../storage/store.js";
import { figuresOf, type VersionFigures, versionFigures } from "./canary-figures.js";
import type { PersonaCanaryStore, RunningCanary } from "./persona-canary-store.js";

/** Why a canary stops by itself: the figures of both versions and the rule they broke. */
export interface CanaryVerdict {
  /** The rule broken: its error rate, or its online score under the operator's floor. */
  reason: "error_rate" | "online_score";
  canary: VersionFigures;
  live: VersionFigures;
  /** The canary's error rate minus the live one's, in percentage points. */
  increase: number;
  maxErrorRateIncrease: number;
  minRequests: number;
}

/**
 * Judges a running canary on its figures since it started: it must stop
 * when it has served at least `minRequests` requests and its error rate
 * exceeds the live version's by more than `maxErrorRateIncrease` points.
 *
 * @returns the verdict when it must stop, else undefined
 */
export function judgeCanary(
  canary: RunningCanary,
  figures: ReadonlyMap<number, VersionFigures>,
): CanaryVerdict | undefined {
  const canaryFigures = figures.get(canary.version) ?? figuresOf(canary.version);
  const liveFigures = figures.get(canary.liveVersion) ?? figuresOf(canary.liveVersion);
  if (canaryFigures.requests < canary.minRequests) return undefined;
  const increase = canaryFigures.errorRate - liveFigures.errorRate;
  if (increase <= canary.maxErrorRateIncrease) return undefined;
  return {
    reason: "error_rate",
    canary: canaryFigures,
    live: liveFigures,
    increase,
    maxErrorRateIncrease: canary.maxErrorRateIncrease,
    minRequests: canary.minRequests,
  };
}

/** Why a canary stops on its online score: its score, the live version's, and the floor broken. */
export interface CanaryScoreVerdict {
  reason: "online_score";
  /** The canary version's online score since it began. */
  canary: OnlineScore;
  /** The live version's over the same time, for comparison (null without samples). */
  live: OnlineScore | null;
  /** Which floor: percent of checks passed, or the judge's mean. */
  floor: "checks" | "judge";
  minOnlineScore: number | null;
  minJudgeScore: number | null;
  minSamples: number;
}

/**
 * Judges a running canary on its online score since it started (online
 * evaluation, `persona sample`): it must stop when at least `minSamples`
 * of its answers were scored and the share of checks passed is under
 * `minOnlineScore`, or the judge's mean (over at least `minSamples` judged
 * answers) is under `minJudgeScore`.
 *
 * @returns the verdict when it must stop, else undefined (always without a floor)
 */
export function judgeCanaryScore(
  canary: RunningCanary,
  scores: ReadonlyMap<number, OnlineScore>,
): CanaryScoreVerdict | undefined {
  const score = scores.get(canary.version);
  if (score === undefined) return undefined;
  const floors = {
    minOnlineScore: canary.minOnlineScore,
    minJudgeScore: canary.minJudgeScore,
    minSamples: canary.minSamples,
  };
  const live = scores.get(canary.liveVersion) ?? null;
  if (
    canary.minOnlineScore !== null &&
    score.samples >= canary.minSamples &&
    score.checkPassRate !== null &&
    score.checkPassRate < canary.minOnlineScore
  ) {
    return { reason: "online_score", canary: score, live, floor: "checks", ...floors };
  }
  if (
    canary.minJudgeScore !== null &&
    score.judged >= canary.minSamples &&
    score.judgeMean !== null &&
    score.judgeMean < canary.minJudgeScore
  ) {
    return { reason: "online_score", canary: score, live, floor: "judge", ...floors };
  }
  return undefined;
}

/**
 * The automatic stop of canaries, off the request path: every
 * `intervalMs` each instance reads the running canaries and their figures
 * from the usage rows and stops those whose error rate is too high, or
 * whose online score (online evaluation's sums since the canary began)
 * fell under the floor the operator set. The
 * stop is a conditional update of that very canary
 * ({@link PersonaCanaryStore.stopAutomatically}), so instances checking at
 * once stop it, record it and log it (warn) once.
 */
export class CanaryWatch {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly canaries: PersonaCanaryStore,
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly intervalMs: number,
    private readonly onlineScores?: Pick<OnlineScoreStore, "sinceCanary">,
  ) {}

  /** Starts the periodic check (the server does, at start-up). */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      if (this.running !== undefined) return;
      this.running = this.check()
        .catch((error: unknown) => this.logger.warn({ err: error }, "checking canaries failed"))
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMs);
    // The check never keeps a process alive on its own.
    this.timer.unref();
  }

  /** Stops the periodic check and waits for one under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /**
   * Checks every running canary once.
   *
   * @returns the personas whose canary this call stopped
   */
  async check(): Promise<string[]> {
    const stopped: string[] = [];
    for (const canary of await this.canaries.running()) {
      const figures = await versionFigures(this.database, canary.personaId, canary.startedAt);
      const verdict = judgeCanary(canary, figures);
      if (verdict !== undefined) {
        if (!(await this.canaries.stopAutomatically(canary, { ...verdict }))) continue;
        stopped.push(canary.personaId);
        this.logger.warn(
          {
            personaId: canary.personaId,
            canaryVersion: canary.version,
            liveVersion: canary.liveVersion,
            ...verdict,
          },
          "persona canary stopped by itself: its error rate exceeded the live version's by more than the margin",
        );
        continue;
      }
      if (this.onlineScores === undefined) continue;
      if (canary.minOnlineScore === null && canary.minJudgeScore === null) continue;
      const scores = await this.onlineScores.sinceCanary(canary.personaId, canary.startedAt);
      const scoreVerdict = judgeCanaryScore(canary, scores);
      if (scoreVerdict === undefined) continue;
      if (!(await this.canaries.stopAutomatically(canary, { ...scoreVerdict }))) continue;
      stopped.push(canary.personaId);
      this.logger.warn(
        {
          personaId: canary.personaId,
          canaryVersion: canary.version,
          liveVersion: canary.liveVersion,
          ...scoreVerdict,
        },
        "persona canary stopped by itself: its online score fell under the floor",
      );
    }
    return stopped;
  }
}
