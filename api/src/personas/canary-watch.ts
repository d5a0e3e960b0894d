import type { Logger } from "../logging/logger.js";
import type { Database } from "../storage/store.js";
import { figuresOf, type VersionFigures, versionFigures } from "./canary-figures.js";
import type { PersonaCanaryStore, RunningCanary } from "./persona-canary-store.js";

/** Why a canary stops by itself: the figures of both versions and the rule they broke. */
export interface CanaryVerdict {
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
    canary: canaryFigures,
    live: liveFigures,
    increase,
    maxErrorRateIncrease: canary.maxErrorRateIncrease,
    minRequests: canary.minRequests,
  };
}

/**
 * The automatic stop of canaries, off the request path: every
 * `intervalMs` each instance reads the running canaries and their figures
 * from the usage rows and stops those whose error rate is too high. The
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
      if (verdict === undefined) continue;
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
    }
    return stopped;
  }
}
