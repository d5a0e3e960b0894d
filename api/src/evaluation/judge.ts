import { contentText } from "@persona-reply/shared";
import type { PriceList } from "../billing/price-list.js";
import type { ModelRouter } from "../engine/model-router.js";
import { compileSystemPrompt } from "../engine/system-prompt.js";
import { describeTarget, type RouteTarget } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";
import type { RubricDimension, SingleTurnCase } from "./evaluation-suite.js";
import {
  type JudgePrompt,
  type JudgeScores,
  parseJudgeAnswer,
  renderJudgePrompt,
} from "./judge-prompt.js";

/** A judge model ready to score replies: its target, prompt, rubric and the router that reaches it. */
export interface Judge {
  target: RouteTarget;
  prompt: JudgePrompt;
  rubric: readonly RubricDimension[];
  /** A router over the operator's upstreams (the judge's deadline and retries are its upstream's). */
  router: ModelRouter;
  prices: PriceList;
}

/** What the judge said of one reply: scores, or why there are none; and what asking cost. */
export interface JudgeVerdict {
  scores: JudgeScores | undefined;
  /** Why there are no scores (the call failed, or the answer was unusable). */
  error: string | undefined;
  /** The operator's cost of the judge call in micro-units (0 when it failed). */
  costMicros: number;
}

/** The conversation as the judge reads it: one `role: text` block per message. */
function describeInput(evaluationCase: SingleTurnCase): string {
  if (evaluationCase.task === "personify") return evaluationCase.source;
  return evaluationCase.messages
    .map((message) => `${message.role}: ${contentText(message.content)}`)
    .join("\n");
}

/**
 * Asks the judge to score one reply on the given dimensions. Never throws
 * for the judge's failures: a failed call or an answer that is not the
 * expected JSON comes back as `error` (the check then counts as an error,
 * not a crash).
 *
 * @param evaluationCase - the case's history or source; a turn of a
 *   conversation case is judged as a /generate history ending in that
 *   turn's user message
 * @param signal - the evaluation's per-call deadline
 */
export async function judgeReply(
  judge: Judge,
  persona: Persona,
  evaluationCase: SingleTurnCase,
  reply: string,
  dimensions: readonly string[],
  expect: string | undefined,
  signal: AbortSignal,
): Promise<JudgeVerdict> {
  const asked = judge.rubric.filter((dimension) => dimensions.includes(dimension.name));
  const prompt = renderJudgePrompt(judge.prompt.template, {
    persona: compileSystemPrompt(persona),
    task: evaluationCase.task,
    input: describeInput(evaluationCase),
    expect,
    reply,
    dimensions: asked,
  });
  let answer: { text: string; costMicros: number };
  try {
    const routed = await judge.router.run(
      [judge.target],
      { persona, task: "reply", messages: [{ role: "user", content: prompt }], candidates: 1 },
      (result) => ({
        text: result.texts[0] ?? "",
        usage: result.usage ?? { inputTokens: 0, outputTokens: 0 },
      }),
      signal,
    );
    answer = {
      text: routed.value.text,
      costMicros: judge.prices.costMicros(routed.target, routed.value.usage),
    };
  } catch (error) {
    const reason = signal.aborted
      ? "did not answer within the evaluation's deadline"
      : (error as Error).message;
    return {
      scores: undefined,
      error: `judge ${describeTarget(judge.target)}: ${reason}`,
      costMicros: 0,
    };
  }
  const parsed = parseJudgeAnswer(
    answer.text,
    asked.map((dimension) => dimension.name),
  );
  return parsed.ok
    ? { scores: parsed.scores, error: undefined, costMicros: answer.costMicros }
    : { scores: undefined, error: parsed.reason, costMicros: answer.costMicros };
}
