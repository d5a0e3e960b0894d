import { performance } from "node:perf_hooks";
import type { PriceList } from "../billing/price-list.js";
import type { ModelRouter } from "../engine/model-router.js";
import type { EngineOutput, EngineTask } from "../engine/persona-engine.js";
import type { EvaluationCase } from "../evaluation/evaluation-suite.js";
import { type Judge, judgeReply } from "../evaluation/judge.js";
import { judgePromptOf } from "../evaluation/judge-prompt.js";
import type { Logger } from "../logging/logger.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Persona } from "../personas/persona.js";
import { timeOrderedId } from "../storage/time-ordered-id.js";
import type { Endpoint } from "../usage/usage-record.js";
import { answeredMessage, runOnlineChecks } from "./online-checks.js";
import type { PersonaOnlineSamplesTable } from "./online-evaluation-tables.js";
import type { OnlineScoreStore, OnlineScoreSums } from "./online-score-store.js";
import { judgeTargetOf, type SamplingSettings } from "./sampling-settings.js";

/** How the sampler's queue and workers are bounded. */
export interface OnlineSamplerOptions {
  /** Answers waiting at most; one more is dropped and counted. */
  capacity: number;
  /** Answers scored at once (judge calls in flight). */
  concurrency: number;
  /** Milliseconds from being picked to being scored, judge call included; past it the answer is dropped. */
  deadlineMs: number;
  /** Milliseconds between writes of the summed scores. */
  flushIntervalMs: number;
}

/** What the sampler reads and writes: the score store, and the judge's router and prices (the operator's). */
export interface OnlineSamplerDependencies {
  scores: Pick<OnlineScoreStore, "add">;
  logger: Logger;
  metrics: Pick<Metrics, "onlineSamples">;
  /** Router over the operator's upstreams for judge calls; undefined: no judge can be asked. */
  judgeRouter: ModelRouter | undefined;
  prices: Pick<PriceList, "costMicros">;
}

interface QueuedAnswer {
  persona: Persona;
  endpoint: Endpoint;
  task: EngineTask;
  reply: string;
  /** When it was served (ISO 8601 UTC). */
  at: string;
  /** `performance.now()` when it was picked. */
  picked: number;
}

/**
 * Online evaluation, off the request path: {@link offer} picks the
 * persona's share of live answers (`persona-admin persona sample`) and
 * queues them in a bounded in-process queue — constant time, never
 * awaiting, never throwing, so sampling cannot slow, fail or bill a
 * request. Workers score queued answers (the reference-free checks and,
 * with a judge, the rubric) within a deadline; the sums are written per
 * persona, version, day and canary every `flushIntervalMs`. A full queue
 * or a missed deadline drops the answer and counts it
 * (`persona_online_samples_total{outcome}`). Judge calls are priced as
 * the operator's cost and stored with the scores, never as usage.
 */
export class OnlineSampler {
  private readonly queue: QueuedAnswer[] = [];
  private active = 0;
  private pumping = false;
  private readonly sums = new Map<string, OnlineScoreSums>();
  private kept: PersonaOnlineSamplesTable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly idle = new Set<() => void>();
  private readonly judges = new WeakMap<SamplingSettings, Judge | null>();
  /** Answers dropped since start (queue full or deadline), also in the metric. */
  dropped = 0;

  constructor(
    private readonly dependencies: OnlineSamplerDependencies,
    private readonly options: OnlineSamplerOptions,
  ) {}

  /**
   * Offers a served answer: picked with the persona's sampling share and
   * queued, else ignored. Never throws, never waits.
   *
   * @param persona - the persona at the version that answered
   */
  offer(persona: Persona, endpoint: Endpoint, task: EngineTask, output: EngineOutput): void {
    const sampling = persona.sampling;
    if (sampling === undefined) return;
    if (sampling.percent < 100 && Math.random() * 100 >= sampling.percent) return;
    if (this.queue.length >= this.options.capacity) {
      this.dropped += 1;
      this.dependencies.metrics.onlineSamples.inc({ outcome: "dropped_full" });
      return;
    }
    this.queue.push({
      persona,
      endpoint,
      task,
      reply: output.texts[0] ?? "",
      at: new Date().toISOString(),
      picked: performance.now(),
    });
    if (!this.pumping) {
      this.pumping = true;
      setImmediate(() => this.pump());
    }
  }

  /** Answers waiting in the queue. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Starts the periodic write of the sums (the server does, at start-up). */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      void this.flush();
    }, this.options.flushIntervalMs);
    this.timer.unref();
  }

  /** Stops the periodic write, waits for the answers being scored and writes what was summed. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.settled();
  }

  /** Waits until the queue is empty and nothing is being scored, then writes the sums (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.queue.length > 0 || this.active > 0 || this.pumping) {
      await new Promise<void>((resolve) => this.idle.add(resolve));
    }
    await this.flush();
  }

  /** Writes the summed scores and kept samples; a failure is logged and counted, never thrown. */
  flush(): Promise<void> {
    if (this.flushing !== undefined) return this.flushing.then(() => this.flush());
    if (this.sums.size === 0 && this.kept.length === 0) return Promise.resolve();
    const sums = [...this.sums.values()];
    const kept = this.kept;
    this.sums.clear();
    this.kept = [];
    this.flushing = this.dependencies.scores
      .add(sums, kept)
      .catch((error: unknown) => {
        const lost = sums.reduce((total, sum) => total + sum.samples, 0);
        this.dependencies.metrics.onlineSamples.inc({ outcome: "failed" }, lost);
        this.dependencies.logger.warn(
          { err: error, lost },
          "storing online evaluation scores failed",
        );
      })
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  private pump(): void {
    this.pumping = false;
    while (this.active < this.options.concurrency) {
      const next = this.queue.shift();
      if (next === undefined) break;
      if (performance.now() - next.picked > this.options.deadlineMs) {
        this.dropped += 1;
        this.dependencies.metrics.onlineSamples.inc({ outcome: "dropped_deadline" });
        continue;
      }
      this.active += 1;
      this.score(next)
        .catch((error: unknown) => {
          this.dependencies.metrics.onlineSamples.inc({ outcome: "failed" });
          this.dependencies.logger.warn({ err: error }, "scoring a sampled answer failed");
        })
        .finally(() => {
          this.active -= 1;
          this.pump();
        });
    }
    if (this.queue.length === 0 && this.active === 0) {
      for (const resolve of this.idle) resolve();
      this.idle.clear();
    }
  }

  private judgeOf(settings: SamplingSettings): Judge | undefined {
    const known = this.judges.get(settings);
    if (known !== undefined) return known ?? undefined;
    const target = judgeTargetOf(settings);
    const router = this.dependencies.judgeRouter;
    let judge: Judge | null = null;
    if (target !== undefined && router !== undefined && settings.judge !== null) {
      try {
        judge = {
          target,
          prompt: judgePromptOf({
            promptVersion: settings.judge.promptVersion,
            template: settings.judge.template,
          }),
          rubric: settings.judge.rubric,
          router,
          prices: this.dependencies.prices as PriceList,
        };
      } catch (error) {
        this.dependencies.logger.warn({ err: error }, "online evaluation's judge is not usable");
      }
    }
    this.judges.set(settings, judge);
    return judge ?? undefined;
  }

  private async score(answer: QueuedAnswer): Promise<void> {
    const { persona } = answer;
    const sampling = persona.sampling;
    if (sampling === undefined) return;
    const { settings } = sampling;
    const checks = runOnlineChecks(persona, settings, answer.task, answer.reply);
    const judge = this.judgeOf(settings);
    let judgeMean: number | undefined;
    let judgeScores: Record<string, number> | undefined;
    let judgeError = false;
    let judgeCost = 0;
    if (judge !== undefined) {
      const remaining = this.options.deadlineMs - (performance.now() - answer.picked);
      const evaluationCase: EvaluationCase =
        answer.task.task === "personify"
          ? {
              id: "online",
              description: "",
              checks: [],
              task: "personify",
              source: answer.task.source,
            }
          : {
              id: "online",
              description: "",
              checks: [],
              task: "generate",
              messages: [...answer.task.messages],
            };
      const verdict = await judgeReply(
        judge,
        persona,
        evaluationCase,
        answer.reply,
        judge.rubric.map((dimension) => dimension.name),
        undefined,
        AbortSignal.timeout(Math.max(1, Math.floor(remaining))),
      );
      judgeCost = verdict.costMicros;
      if (verdict.scores === undefined) {
        judgeError = true;
      } else {
        judgeScores = verdict.scores;
        const values = Object.values(verdict.scores);
        judgeMean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
      }
    }
    const day = answer.at.slice(0, 10);
    const key = `${persona.id}\n${persona.version}\n${day}\n${sampling.canaryStartedAt}`;
    const sum = this.sums.get(key) ?? {
      personaId: persona.id,
      version: persona.version,
      day,
      canaryStartedAt: sampling.canaryStartedAt,
      samples: 0,
      checks: 0,
      checksPassed: 0,
      judged: 0,
      judgeScoreSum: 0,
      judgeErrors: 0,
      judgeCostMicros: 0,
    };
    sum.samples += 1;
    sum.checks += checks.decided;
    sum.checksPassed += checks.passed;
    if (judgeMean !== undefined) {
      sum.judged += 1;
      sum.judgeScoreSum += judgeMean;
    }
    if (judgeError) sum.judgeErrors += 1;
    sum.judgeCostMicros += judgeCost;
    this.sums.set(key, sum);
    if (settings.keepContentDays !== null) {
      const deleteAfter = new Date(Date.parse(answer.at) + settings.keepContentDays * 86_400_000);
      this.kept.push({
        id: timeOrderedId(),
        persona_id: persona.id,
        version: persona.version,
        at: answer.at,
        endpoint: answer.endpoint,
        message: answeredMessage(answer.task),
        reply: answer.reply,
        checks: JSON.stringify(checks.results),
        judge_scores: judgeScores === undefined ? null : JSON.stringify(judgeScores),
        delete_after: deleteAfter.toISOString(),
      });
    }
    this.dependencies.metrics.onlineSamples.inc({ outcome: "scored" });
  }
}
