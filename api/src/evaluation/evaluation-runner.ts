import { performance } from "node:perf_hooks";
import pLimit from "p-limit";
import type { PriceList } from "../billing/price-list.js";
import type { EngineTask, PersonaEngine } from "../engine/persona-engine.js";
import { describeTarget, type ModelRoute } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";
import { describeCheck, judgedVerdict } from "./check-results.js";
import { NO_SIMULATED_USER, runConversationCase } from "./conversation-runner.js";
import { checkSubjectOf, runDeterministicCheck } from "./deterministic-checks.js";
import type { CaseRun, CheckResult, EvaluationRun, EvaluationSide } from "./evaluation-run.js";
import type { EvaluationSuite, SingleTurnCase } from "./evaluation-suite.js";
import { type Judge, judgeReply } from "./judge.js";
import { buildScorecard } from "./scorecard.js";
import { SIMULATED_USER_PROMPT_VERSION, type SimulatedUser } from "./simulated-user.js";

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
  /**
   * The user of conversation cases; undefined when none is configured (a
   * conversation case then speaks its `script`, or is skipped).
   */
  simulatedUser?: SimulatedUser | undefined;
}

/** How a run is carried out. */
export interface EvaluationRunOptions {
  /** Times each case is run (1–20); judge scores' spread is over these. */
  repeat: number;
  /** Case runs at once, over both sides of a comparison (p-limit). */
  concurrency: number;
  /**
   * Deadline of each engine, judge or simulated user call in milliseconds
   * (the upstream's own deadline applies within it): a conversation's turn
   * makes up to three such calls.
   */
  callTimeoutMs: number;
  /** Called after each case run: how many of how many are done, and which one this was. */
  onProgress?: (progress: EvaluationProgress) => void;
}

/** One finished case run, as progress reports it. */
export interface EvaluationProgress {
  /** Case runs finished, over both sides. */
  done: number;
  /** Case runs in all, over both sides. */
  total: number;
  /** The side whose case run this was. */
  side: EvaluationSide;
  caseId: string;
  /** 1-based repetition. */
  repeat: number;
}

/** What a comparison evaluates: the candidate, and the baseline it is compared with, if any. */
export interface EvaluationSides {
  candidate: EvaluationSubject;
  baseline?: EvaluationSubject;
}

/** The runs of a comparison, one per side evaluated. */
export interface EvaluationSideRuns {
  candidate: EvaluationRun;
  baseline?: EvaluationRun;
}

// The scorecard's label of a check, where callers of the runner have found it.
export { describeCheck } from "./check-results.js";

function engineTask(evaluationCase: SingleTurnCase): EngineTask {
  return evaluationCase.task === "generate"
    ? { task: "reply", messages: evaluationCase.messages, candidates: 1 }
    : { task: "personify", source: evaluationCase.source };
}

/**
 * Runs a suite for one subject; {@link runComparison} with a candidate
 * alone.
 */
export async function runEvaluation(
  suite: EvaluationSuite,
  subject: EvaluationSubject,
  dependencies: EvaluationDependencies,
  options: EvaluationRunOptions,
): Promise<EvaluationRun> {
  return (await runComparison(suite, { candidate: subject }, dependencies, options)).candidate;
}

/**
 * Runs a suite for a candidate and, when given, a baseline: every case
 * `repeat` times per side through the persona engine along that side's
 * route — the same prompt, route walk, fallbacks and normalization as a
 * request — but never through the request pipeline's metering: no balance,
 * rate limit or usage row is touched; what the calls cost (the answering
 * target's price) is summed as the operator's.
 *
 * The two sides are interleaved case by case, and which side goes first
 * alternates from one case run to the next (case 1 candidate then
 * baseline, case 2 baseline then candidate, …): run one after the other,
 * the second side would meet warm connections and the cooldowns the first
 * left behind (a failing upstream skipped makes it look faster);
 * interleaved and alternated, both meet the same conditions. At most
 * `concurrency` case runs at once over both sides, each call under
 * `callTimeoutMs`. A failed call makes that run's checks `error`s; judged
 * checks are scored by the judge when there is one and `skipped`
 * otherwise. A conversation case is one case run whose turns go in order
 * ({@link runConversationCase}): each side talks with its own simulated
 * user, or speaks the case's script.
 */
export async function runComparison(
  suite: EvaluationSuite,
  sides: EvaluationSides,
  dependencies: EvaluationDependencies,
  options: EvaluationRunOptions,
): Promise<EvaluationSideRuns> {
  const startedAt = new Date().toISOString();
  const subjects = new Map<EvaluationSide, EvaluationSubject>([["candidate", sides.candidate]]);
  if (sides.baseline !== undefined) subjects.set("baseline", sides.baseline);
  const limit = pLimit(options.concurrency);
  const total = suite.cases.length * options.repeat * subjects.size;
  let done = 0;
  const work = new Map<EvaluationSide, Array<Promise<CaseRun>>>(
    [...subjects.keys()].map((side) => [side, []]),
  );
  let turn = 0;
  for (let repeat = 1; repeat <= options.repeat; repeat++) {
    for (const evaluationCase of suite.cases) {
      // p-limit starts queued work in the order queued.
      const order: EvaluationSide[] =
        turn % 2 === 0 ? ["candidate", "baseline"] : ["baseline", "candidate"];
      turn += 1;
      for (const side of order) {
        const subject = subjects.get(side);
        if (subject === undefined) continue;
        const persona: Persona = { ...subject.persona, route: subject.route };
        work.get(side)?.push(
          limit(async () => {
            const result =
              evaluationCase.task === "conversation"
                ? await runConversationCase(
                    suite,
                    evaluationCase,
                    repeat,
                    persona,
                    { ...dependencies, simulatedUser: dependencies.simulatedUser },
                    options.callTimeoutMs,
                  )
                : await runCase(suite, evaluationCase, repeat, persona, dependencies, options);
            done += 1;
            options.onProgress?.({ done, total, side, caseId: evaluationCase.id, repeat });
            return result;
          }),
        );
      }
    }
  }
  const finished = new Map<EvaluationSide, CaseRun[]>(
    await Promise.all(
      [...work].map(async ([side, promises]) => [side, await Promise.all(promises)] as const),
    ),
  );
  const finishedAt = new Date().toISOString();
  const runOf = (side: EvaluationSide, subject: EvaluationSubject): EvaluationRun =>
    assembleRun(
      suite,
      side,
      subject,
      dependencies,
      options.repeat,
      startedAt,
      finishedAt,
      finished.get(side) ?? [],
    );
  const candidate = runOf("candidate", sides.candidate);
  return sides.baseline === undefined
    ? { candidate }
    : { candidate, baseline: runOf("baseline", sides.baseline) };
}

function assembleRun(
  suite: EvaluationSuite,
  side: EvaluationSide,
  subject: EvaluationSubject,
  { judge, simulatedUser }: EvaluationDependencies,
  repeat: number,
  startedAt: string,
  finishedAt: string,
  cases: CaseRun[],
): EvaluationRun {
  return {
    side,
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
      suite.cases.some(
        // A conversation case is judged every turn (its in-character score).
        (item) =>
          item.task === "conversation" || item.checks.some((check) => check.type === "judge"),
      )
        ? "no judge configured (give --judge upstream:model, or judge.route in the suite)"
        : null,
    simulatedUser:
      simulatedUser === undefined
        ? null
        : {
            route: describeTarget(simulatedUser.target),
            promptVersion: SIMULATED_USER_PROMPT_VERSION,
          },
    simulatedUserSkipped:
      simulatedUser === undefined && suite.cases.some((item) => item.task === "conversation")
        ? `${NO_SIMULATED_USER}: a conversation case speaks its script, or is skipped`
        : null,
    repeat,
    startedAt,
    finishedAt,
    cases,
    scorecard: buildScorecard(suite, cases),
  };
}

async function runCase(
  suite: EvaluationSuite,
  evaluationCase: SingleTurnCase,
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
  const subject = checkSubjectOf(reply, evaluationCase, persona.name, suite.refusalMarkers);
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
    checks.push({
      index,
      type: check.type,
      label,
      ...judgedVerdict(check, verdict.scores, dimensions),
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
