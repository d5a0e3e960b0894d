import { performance } from "node:perf_hooks";
import pLimit from "p-limit";
import type { PriceList } from "../billing/price-list.js";
import type { EngineTask, PersonaEngine } from "../engine/persona-engine.js";
import { describeTarget, type ModelRoute } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";
import { runDeterministicCheck } from "./deterministic-checks.js";
import type { CaseRun, CheckResult, EvaluationRun } from "./evaluation-run.js";
import type { EvaluationCase, EvaluationCheck, EvaluationSuite } from "./evaluation-suite.js";
import { type Judge, judgeReply } from "./judge.js";
import { buildScorecard } from "./scorecard.js";

/** What is evaluated: a persona (the live one, or a version) along a route. */
export interface EvaluationSubject {
  persona: Persona;
  /** The version evaluated; null only in runs stored before persona versions existed. */
  version: number | null;
  /** The route its cases run along (the persona's own, or `--route`). */
  route: ModelRoute;
}

/** The parts a run uses: the engine (as the request pipeline uses it) and the price list — never billing. */
export interface EvaluationDependencies {
  engine: Pick<PersonaEngine, "prepare">;
  prices: Pick<PriceList, "costMicros">;
  /** The judge; undefined when none is configured (judged checks are then skipped). */
  judge: Judge | undefined;
}

/** How a run is carried out. */
export interface EvaluationRunOptions {
  /** Times each case is run (1–20); judge scores' spread is over these. */
  repeat: number;
  /** Engine calls at once (p-limit). */
  concurrency: number;
  /** Deadline of each engine or judge call in milliseconds (the upstream's own deadline applies within it). */
  callTimeoutMs: number;
  /** Called after each case run with how many of how many are done. */
  onProgress?: (done: number, total: number) => void;
}

/** A short description of a check for the scorecard. */
export function describeCheck(check: EvaluationCheck): string {
  switch (check.type) {
    case "match":
    case "no-match":
      return `${check.type} ${check.text !== undefined ? `"${check.text}"` : `/${check.pattern}/`}`;
    case "length":
      return `length ${check.min ?? 0}–${check.max ?? "∞"} ${check.unit}`;
    case "refusal":
      return check.topic === undefined ? "refusal" : `refusal (${check.topic})`;
    case "judge":
      return `judge ≥ ${check.minScore}${check.dimensions === undefined ? "" : ` (${check.dimensions.join(", ")})`}`;
    default:
      return check.type;
  }
}

function engineTask(evaluationCase: EvaluationCase): EngineTask {
  return evaluationCase.task === "generate"
    ? { task: "reply", messages: evaluationCase.messages, candidates: 1 }
    : { task: "personify", source: evaluationCase.source };
}

/**
 * Runs a suite for a subject (issue 25 "Evaluation"): every case `repeat`
 * times through the persona engine along the subject's route — the same
 * prompt, route walk, fallbacks and normalization as a request — but never
 * through the request pipeline's metering: no balance, rate limit or usage
 * row is touched; what the calls cost (the answering target's price) is
 * summed as the operator's. At most `concurrency` case runs at once, each
 * call under `callTimeoutMs`. A failed call makes that run's checks
 * `error`s; judged checks are scored by the judge when there is one and
 * `skipped` otherwise.
 */
export async function runEvaluation(
  suite: EvaluationSuite,
  subject: EvaluationSubject,
  dependencies: EvaluationDependencies,
  options: EvaluationRunOptions,
): Promise<EvaluationRun> {
  const startedAt = new Date().toISOString();
  const persona: Persona = { ...subject.persona, route: subject.route };
  const limit = pLimit(options.concurrency);
  const total = suite.cases.length * options.repeat;
  let done = 0;
  const work: Array<Promise<CaseRun>> = [];
  for (let repeat = 1; repeat <= options.repeat; repeat++) {
    for (const evaluationCase of suite.cases) {
      work.push(
        limit(async () => {
          const result = await runCase(
            suite,
            evaluationCase,
            repeat,
            persona,
            dependencies,
            options,
          );
          done += 1;
          options.onProgress?.(done, total);
          return result;
        }),
      );
    }
  }
  const cases = await Promise.all(work);
  const judge = dependencies.judge;
  return {
    personaId: subject.persona.id,
    version: subject.version,
    route: subject.route.map(describeTarget),
    suite: { name: suite.name, hash: suite.hash },
    judge:
      judge === undefined
        ? null
        : {
            route: describeTarget(judge.target),
            promptVersion: judge.prompt.version,
            promptHash: judge.prompt.hash,
          },
    judgeSkipped:
      judge === undefined &&
      suite.cases.some((item) => item.checks.some((check) => check.type === "judge"))
        ? "no judge configured (give --judge upstream:model, or judge.route in the suite)"
        : null,
    repeat: options.repeat,
    startedAt,
    finishedAt: new Date().toISOString(),
    cases,
    scorecard: buildScorecard(suite, cases),
  };
}

async function runCase(
  suite: EvaluationSuite,
  evaluationCase: EvaluationCase,
  repeat: number,
  persona: Persona,
  dependencies: EvaluationDependencies,
  options: EvaluationRunOptions,
): Promise<CaseRun> {
  const base = { caseId: evaluationCase.id, repeat, task: evaluationCase.task };
  const deadline = AbortSignal.timeout(options.callTimeoutMs);
  const started = performance.now();
  let reply: string;
  let answeredBy: string;
  let costMicros: number;
  try {
    const output = await dependencies.engine
      .prepare(persona, engineTask(evaluationCase))
      .run(deadline);
    reply = output.texts[0] ?? "";
    answeredBy = describeTarget(output.target);
    costMicros = dependencies.prices.costMicros(output.target, output.usage);
  } catch (error) {
    const message = deadline.aborted
      ? `no answer within the evaluation's deadline of ${options.callTimeoutMs} ms`
      : (error as Error).message;
    return {
      ...base,
      reply: null,
      error: message,
      answeredBy: null,
      latencyMs: performance.now() - started,
      costMicros: 0,
      judgeCostMicros: 0,
      checks: evaluationCase.checks.map((check, index) => ({
        index,
        type: check.type,
        label: describeCheck(check),
        outcome: "error",
        detail: "the call failed",
      })),
    };
  }
  const latencyMs = performance.now() - started;
  const subject = {
    reply,
    source: evaluationCase.task === "personify" ? evaluationCase.source : undefined,
    personaName: persona.name,
    refusalMarkers: suite.refusalMarkers,
  };
  const checks: CheckResult[] = [];
  let judgeCostMicros = 0;
  for (const [index, check] of evaluationCase.checks.entries()) {
    const label = describeCheck(check);
    if (check.type !== "judge") {
      checks.push({ index, type: check.type, label, ...runDeterministicCheck(check, subject) });
      continue;
    }
    const judge = dependencies.judge;
    if (judge === undefined) {
      checks.push({
        index,
        type: check.type,
        label,
        outcome: "skipped",
        detail: "no judge configured",
      });
      continue;
    }
    const dimensions = check.dimensions ?? judge.rubric.map((dimension) => dimension.name);
    const verdict = await judgeReply(
      judge,
      persona,
      evaluationCase,
      reply,
      dimensions,
      check.expect,
      AbortSignal.timeout(options.callTimeoutMs),
    );
    judgeCostMicros += verdict.costMicros;
    if (verdict.scores === undefined) {
      checks.push({
        index,
        type: check.type,
        label,
        outcome: "error",
        detail: verdict.error ?? "",
      });
      continue;
    }
    const low = Object.entries(verdict.scores).filter(([, score]) => score < check.minScore);
    checks.push({
      index,
      type: check.type,
      label,
      outcome: low.length === 0 ? "pass" : "fail",
      detail: low.map(([name, score]) => `${name} ${score}`).join(", "),
      scores: verdict.scores,
    });
  }
  return {
    ...base,
    reply,
    error: null,
    answeredBy,
    latencyMs,
    costMicros,
    judgeCostMicros,
    checks,
  };
}
