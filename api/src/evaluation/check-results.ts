import type { CheckVerdict } from "./deterministic-checks.js";
import type { EvaluationCheck } from "./evaluation-suite.js";
import type { JudgeScores } from "./judge-prompt.js";

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

/**
 * A judged check's verdict from the judge's scores: it passes when every
 * dimension it asks for reaches its `minScore`; the detail names those that
 * did not.
 *
 * @param scores - the judge's scores; dimensions the check does not ask for are ignored
 * @param dimensions - the dimensions the check asks for (its own, or the whole rubric)
 */
export function judgedVerdict(
  check: Extract<EvaluationCheck, { type: "judge" }>,
  scores: JudgeScores,
  dimensions: readonly string[],
): CheckVerdict & { scores: JudgeScores } {
  const asked = Object.fromEntries(
    dimensions.flatMap((name) => (scores[name] === undefined ? [] : [[name, scores[name]]])),
  ) as JudgeScores;
  const low = Object.entries(asked).filter(([, score]) => score < check.minScore);
  return {
    outcome: low.length === 0 ? "pass" : "fail",
    detail: low.map(([name, score]) => `${name} ${score}`).join(", "),
    scores: asked,
  };
}
