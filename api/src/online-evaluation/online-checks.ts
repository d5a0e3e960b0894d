import { contentText } from "@persona-reply/shared";
import type { EngineTask } from "../engine/persona-engine.js";
import {
  type CheckVerdict,
  checkSubjectOf,
  runDeterministicCheck,
} from "../evaluation/deterministic-checks.js";
import { describeCheck } from "../evaluation/evaluation-runner.js";
import type { EvaluationCheck } from "../evaluation/evaluation-suite.js";
import type { Persona } from "../personas/persona.js";
import type { SamplingSettings } from "./sampling-settings.js";

/** One check of a live answer: what it was and how it ended. */
export interface OnlineCheckResult extends CheckVerdict {
  label: string;
}

/** The checks of one live answer and the figures they add to the day's score. */
export interface OnlineCheckOutcome {
  results: OnlineCheckResult[];
  /** Checks decided (passed or failed). */
  decided: number;
  passed: number;
}

/**
 * The message a live answer answered: the last user message of a reply
 * (/generate, /completions, the playground), the source of a /personify.
 */
export function answeredMessage(task: EngineTask): string {
  if (task.task === "personify") return task.source;
  for (let index = task.messages.length - 1; index >= 0; index -= 1) {
    const message = task.messages[index];
    if (message?.role === "user") return contentText(message.content);
  }
  return "";
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
}

/**
 * The persona's avoid topic a message meets (a whole-word, case-insensitive
 * mention), or undefined. Only a reply is asked to refuse; a /personify
 * rewrites whatever it is given.
 */
export function metAvoidTopic(
  persona: Persona,
  task: EngineTask,
  message: string,
): string | undefined {
  if (task.task !== "reply") return undefined;
  return persona.traits.behaviouralGuidelines.avoidTopics.find((topic) =>
    new RegExp(`(?:^|[^\\p{L}\\p{N}])${escapeRegExp(topic)}(?:$|[^\\p{L}\\p{N}])`, "iu").test(
      message,
    ),
  );
}

/**
 * Runs the reference-free checks of a persona's sampling on a live answer,
 * with the evaluation suite's own check code (evaluation/deterministic-checks.ts):
 * the configured checks (artefacts and role prefixes, length bounds,
 * must-not patterns), and a `refusal` when the message meets one of the
 * persona's avoid topics. Linear in the answer; never throws.
 */
export function runOnlineChecks(
  persona: Persona,
  settings: SamplingSettings,
  task: EngineTask,
  reply: string,
): OnlineCheckOutcome {
  const message = answeredMessage(task);
  const checks: EvaluationCheck[] = [...settings.checks];
  const topic = metAvoidTopic(persona, task, message);
  if (topic !== undefined) checks.push({ type: "refusal", topic });
  const subject = checkSubjectOf(reply, task, persona.name, settings.refusalMarkers);
  const results: OnlineCheckResult[] = [];
  let decided = 0;
  let passed = 0;
  for (const check of checks) {
    const verdict = runDeterministicCheck(check, subject);
    results.push({ label: describeCheck(check), ...verdict });
    if (verdict.outcome === "pass" || verdict.outcome === "fail") decided += 1;
    if (verdict.outcome === "pass") passed += 1;
  }
  return { results, decided, passed };
}
