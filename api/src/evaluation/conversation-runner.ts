import { performance } from "node:perf_hooks";
import type { Message } from "@persona-reply/shared";
import type { PriceList } from "../billing/price-list.js";
import type { PersonaEngine } from "../engine/persona-engine.js";
import { describeTarget } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";
import { describeCheck, judgedVerdict } from "./check-results.js";
import { conversationDrift } from "./conversation-drift.js";
import { checkSubjectOf, runDeterministicCheck } from "./deterministic-checks.js";
import type { CaseRun, CheckResult, ConversationRun, TurnRun } from "./evaluation-run.js";
import type { EvaluationCase, EvaluationSuite } from "./evaluation-suite.js";
import { type Judge, judgeReply } from "./judge.js";
import { askSimulatedUser, type SimulatedUser, type SpokenTurn } from "./simulated-user.js";

/** A conversation case of a suite. */
export type ConversationCase = Extract<EvaluationCase, { task: "conversation" }>;

/** What a conversation uses: the engine and prices (as a single-turn case), the judge and the simulated user. */
export interface ConversationDependencies {
  engine: Pick<PersonaEngine, "prepare">;
  prices: Pick<PriceList, "costMicros">;
  /** Undefined: no in-character score, judged checks skipped. */
  judge: Judge | undefined;
  /** Undefined: the case's `script` speaks as the user, or the case is skipped. */
  simulatedUser: SimulatedUser | undefined;
}

/**
 * Why a conversation case without a `script` is skipped when no simulated
 * user is configured: a skip, not a failure.
 */
export const NO_SIMULATED_USER =
  "no simulated user configured (give --simulated-user upstream:model, or simulatedUser.route in the suite)";

/** The dimensions the in-character score of a conversation averages: its own, or the whole rubric. */
export function inCharacterDimensions(
  evaluationCase: ConversationCase,
  rubric: ReadonlyArray<{ name: string }>,
): string[] {
  return evaluationCase.conversation.dimensions ?? rubric.map((dimension) => dimension.name);
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * Runs one conversation case once: for each of its turns the user speaks —
 * the simulated user (its `opening` first when given), or without one the
 * case's `script` — and the persona answers through the engine along its
 * route with the whole history so far, exactly as a /generate request with
 * that history is answered (never billed: the costs are the operator's).
 * Every persona turn gets the case's checks and, with a judge, one judge
 * call scoring every judged dimension: the in-character score of the turn
 * is the mean of the in-character dimensions, and the case's judged checks
 * are decided from the same scores. The drift is taken over the judged
 * turns ({@link conversationDrift}).
 *
 * Each call (simulated user, engine, judge) has `callTimeoutMs`. A failed
 * simulated user or engine call stops the conversation at that turn (its
 * checks are errors, `error` says why); a failed judge call makes that
 * turn's judged checks errors and leaves its score out. Never throws for
 * those failures.
 */
export async function runConversationCase(
  suite: EvaluationSuite,
  evaluationCase: ConversationCase,
  repeat: number,
  persona: Persona,
  dependencies: ConversationDependencies,
  callTimeoutMs: number,
): Promise<CaseRun> {
  const spec = evaluationCase.conversation;
  const { simulatedUser, judge } = dependencies;
  const base = { caseId: evaluationCase.id, repeat, task: evaluationCase.task };
  const speaker =
    simulatedUser !== undefined
      ? describeTarget(simulatedUser.target)
      : spec.script !== undefined
        ? "script"
        : null;
  if (speaker === null) {
    const conversation: ConversationRun = {
      user: null,
      turnsPlanned: spec.turns,
      skipped: NO_SIMULATED_USER,
      turns: [],
      inCharacter: null,
      drift: null,
    };
    return {
      ...base,
      reply: null,
      error: null,
      answeredBy: null,
      latencyMs: 0,
      costMicros: 0,
      judgeCostMicros: 0,
      simulatedUserCostMicros: 0,
      checks: evaluationCase.checks.map((check, index) => ({
        index,
        type: check.type,
        label: describeCheck(check),
        outcome: "skipped",
        detail: NO_SIMULATED_USER,
      })),
      conversation,
    };
  }

  const characterDimensions =
    judge === undefined ? [] : inCharacterDimensions(evaluationCase, judge.rubric);
  const judgedDimensions = new Set(characterDimensions);
  for (const check of evaluationCase.checks) {
    if (check.type !== "judge") continue;
    for (const name of check.dimensions ?? judge?.rubric.map((dimension) => dimension.name) ?? []) {
      judgedDimensions.add(name);
    }
  }

  const history: Message[] = [];
  const spoken: SpokenTurn[] = [];
  const turns: TurnRun[] = [];
  const checks: CheckResult[] = [];
  const failedTurn = (turn: number) => {
    for (const [index, check] of evaluationCase.checks.entries()) {
      checks.push({
        index,
        type: check.type,
        label: describeCheck(check),
        outcome: "error",
        detail: "the turn failed",
        turn,
      });
    }
  };

  for (let turn = 1; turn <= spec.turns; turn++) {
    const record: TurnRun = {
      turn,
      user: null,
      reply: null,
      error: null,
      answeredBy: null,
      latencyMs: 0,
      costMicros: 0,
      simulatedUserCostMicros: 0,
      judgeCostMicros: 0,
      scores: null,
      inCharacter: null,
      judgeError: null,
    };
    turns.push(record);

    if (simulatedUser === undefined) {
      record.user = spec.script?.[turn - 1] ?? null;
    } else if (turn === 1 && spec.opening !== undefined) {
      record.user = spec.opening;
    } else {
      const answer = await askSimulatedUser(
        simulatedUser,
        persona,
        spec,
        spoken,
        AbortSignal.timeout(callTimeoutMs),
      );
      record.simulatedUserCostMicros = answer.costMicros;
      if (!answer.ok) {
        record.error = answer.error;
        failedTurn(turn);
        break;
      }
      record.user = answer.text;
    }
    const user = record.user ?? "";
    history.push({ role: "user", content: user });

    const deadline = AbortSignal.timeout(callTimeoutMs);
    const started = performance.now();
    let reply: string;
    try {
      const output = await dependencies.engine
        .prepare(persona, { task: "reply", messages: [...history], candidates: 1 })
        .run(deadline);
      reply = output.texts[0] ?? "";
      record.answeredBy = describeTarget(output.target);
      record.costMicros = dependencies.prices.costMicros(output.target, output.usage);
    } catch (error) {
      record.latencyMs = performance.now() - started;
      record.error = deadline.aborted
        ? `no answer within the evaluation's deadline of ${callTimeoutMs} ms`
        : (error as Error).message;
      failedTurn(turn);
      break;
    }
    record.latencyMs = performance.now() - started;
    record.reply = reply;

    const subject = checkSubjectOf(reply, undefined, persona.name, suite.refusalMarkers);
    let verdict: Awaited<ReturnType<typeof judgeReply>> | undefined;
    if (judge !== undefined && judgedDimensions.size > 0) {
      verdict = await judgeReply(
        judge,
        persona,
        {
          id: evaluationCase.id,
          description: evaluationCase.description,
          checks: [],
          task: "generate",
          messages: [...history],
        },
        reply,
        [...judgedDimensions],
        spec.expect,
        AbortSignal.timeout(callTimeoutMs),
      );
      record.judgeCostMicros = verdict.costMicros;
      if (verdict.scores === undefined) {
        record.judgeError = verdict.error ?? "the judge gave no scores";
      } else {
        record.scores = verdict.scores;
        const scores = verdict.scores;
        record.inCharacter = mean(
          characterDimensions.flatMap((name) => (scores[name] === undefined ? [] : [scores[name]])),
        );
      }
    }
    for (const [index, check] of evaluationCase.checks.entries()) {
      const label = describeCheck(check);
      const result = { index, type: check.type, label, turn };
      if (check.type !== "judge") {
        checks.push({ ...result, ...runDeterministicCheck(check, subject) });
      } else if (judge === undefined || verdict === undefined) {
        checks.push({ ...result, outcome: "skipped", detail: "no judge configured" });
      } else if (verdict.scores === undefined) {
        checks.push({ ...result, outcome: "error", detail: record.judgeError ?? "" });
      } else {
        const dimensions = check.dimensions ?? judge.rubric.map((dimension) => dimension.name);
        checks.push({ ...result, ...judgedVerdict(check, verdict.scores, dimensions) });
      }
    }
    history.push({ role: "assistant", content: reply });
    spoken.push({ user, reply });
  }

  const scored = turns.flatMap((record) =>
    record.inCharacter === null ? [] : [{ turn: record.turn, score: record.inCharacter }],
  );
  const stoppedAt = turns.find((record) => record.error !== null);
  const sum = (pick: (record: TurnRun) => number) =>
    turns.reduce((total, record) => total + pick(record), 0);
  const last = turns.findLast((record) => record.reply !== null);
  return {
    ...base,
    reply: last?.reply ?? null,
    error: stoppedAt === undefined ? null : `turn ${stoppedAt.turn}: ${stoppedAt.error}`,
    answeredBy: last?.answeredBy ?? null,
    latencyMs: sum((record) => record.latencyMs),
    costMicros: sum((record) => record.costMicros),
    judgeCostMicros: sum((record) => record.judgeCostMicros),
    simulatedUserCostMicros: sum((record) => record.simulatedUserCostMicros),
    checks,
    conversation: {
      user: speaker,
      turnsPlanned: spec.turns,
      skipped: null,
      turns,
      inCharacter: mean(scored.map((point) => point.score)),
      drift: conversationDrift(scored),
    },
  };
}
