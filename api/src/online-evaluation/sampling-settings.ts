import { z } from "zod";
import {
  type EvaluationCheck,
  type EvaluationSuite,
  evaluationCheckSchema,
} from "../evaluation/evaluation-suite.js";
import { modelRouteSchema, type RouteTarget } from "../personas/model-route.js";

/** The kinds of suite check that need no reference answer, so they can score a live answer. */
export const REFERENCE_FREE_CHECKS = ["no-artefacts", "length", "no-match"] as const;

/** Days a kept sample stays by default before the retention run removes it. */
export const DEFAULT_KEEP_CONTENT_DAYS = 7;

const rubricSchema = z.array(z.object({ name: z.string(), description: z.string() })).min(1);

/**
 * What online evaluation of one persona does, stored as JSON in
 * `personas.sample_settings` (migration 0027) by `persona-admin persona
 * sample`. Read on every instance with the persona; an unreadable value
 * switches sampling off rather than failing a request.
 */
export const samplingSettingsSchema = z.object({
  /** Reference-free checks run on every sampled answer (a suite's `everyCase` ones, or `no-artefacts`). */
  checks: z.array(evaluationCheckSchema),
  /** Refusal patterns added to the built-in ones (the suite's `refusalMarkers`). */
  refusalMarkers: z.array(z.string()),
  /** The suite the checks came from, or null for the built-in `no-artefacts` alone. */
  suite: z.object({ name: z.string(), hash: z.string() }).nullable(),
  /** The judge: `upstream:model`, its prompt and rubric; null: no rubric scores. */
  judge: z
    .object({
      route: z.string(),
      promptVersion: z.string().optional(),
      template: z.string().optional(),
      rubric: rubricSchema,
    })
    .nullable(),
  /** Days sampled content is kept (`--keep-content`); null: content is never stored. */
  keepContentDays: z.number().int().min(1).max(3650).nullable(),
});

/** Online evaluation settings of a persona (see {@link samplingSettingsSchema}). */
export type SamplingSettings = z.output<typeof samplingSettingsSchema>;

/** A persona's sampling as the request path reads it with the persona. */
export interface PersonaSampling {
  /** Share of live answers scored, in percent (0 < percent ≤ 100). */
  percent: number;
  settings: SamplingSettings;
  /**
   * The canary running when the persona was read (its start), `''` when
   * none: a served canary version no longer carries its canary, and scores
   * are kept per canary so `persona status` shows them since it began.
   */
  canaryStartedAt: string;
}

/** The reference-free checks of a suite: its `everyCase` checks of the kinds in {@link REFERENCE_FREE_CHECKS}. */
export function referenceFreeChecks(suite: EvaluationSuite | undefined): EvaluationCheck[] {
  const chosen = (suite?.cases[0]?.checks ?? []).filter(
    (check) =>
      (REFERENCE_FREE_CHECKS as readonly string[]).includes(check.type) &&
      suite !== undefined &&
      isEveryCase(suite, check),
  );
  return chosen.some((check) => check.type === "no-artefacts")
    ? chosen
    : [{ type: "no-artefacts" }, ...chosen];
}

/** Whether a check of the first case is one of the suite's `everyCase` checks (they come first, on every case). */
function isEveryCase(suite: EvaluationSuite, check: EvaluationCheck): boolean {
  return suite.cases.every((item) => item.checks.includes(check));
}

/** The judge's route target of stored settings. */
export function judgeTargetOf(settings: SamplingSettings): RouteTarget | undefined {
  if (settings.judge === null) return undefined;
  return modelRouteSchema.parse([settings.judge.route])[0];
}

/**
 * Reads stored settings; undefined when the column is empty or not valid
 * (sampling is then off: a bad value never fails a request).
 */
export function parseSamplingSettings(text: string | null): SamplingSettings | undefined {
  if (text === null) return undefined;
  try {
    const parsed = samplingSettingsSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
