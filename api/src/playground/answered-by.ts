import type { RouteTarget } from "../personas/model-route.js";
import type { Upstreams } from "../providers/upstream-config.js";

/**
 * What the playground says about who answered a turn (issue 28): the route
 * target that answered and whether it is the development engine. Sent only
 * by the playground's own endpoints, beside the body of /api/v1/generate or
 * /api/v1/personify (those bodies stay exactly as spec §4 gives them).
 */
export interface AnsweredBy {
  /** `upstream:model`, as route targets are written (api/README.md "Model routes"). */
  target: string;
  upstream: string;
  model: string;
  /**
   * The target is an `offline` upstream: the deterministic development
   * engine, not a language model.
   */
  development: boolean;
  /** The persona version that answered (issue 25), as the `Persona-Version` header says. */
  personaVersion: number;
}

/**
 * Describes the target that answered.
 *
 * @param target - `EngineOutput.target`
 * @param upstreams - the configured upstreams, to tell the development engine by its kind
 * @param personaVersion - the persona version that answered
 * @example
 * describeAnswer({ upstream: "offline", model: "offline-composer-1" }, upstreams, 2);
 * // { target: "offline:offline-composer-1", upstream: "offline", model: "offline-composer-1", development: true, personaVersion: 2 }
 */
export function describeAnswer(
  target: RouteTarget,
  upstreams: Upstreams,
  personaVersion: number,
): AnsweredBy {
  return {
    personaVersion,
    target: `${target.upstream}:${target.model}`,
    upstream: target.upstream,
    model: target.model,
    development: isDevelopmentTarget(target, upstreams),
  };
}

/** Whether a target's upstream is of kind `offline` (the development engine). */
export function isDevelopmentTarget(target: RouteTarget, upstreams: Upstreams): boolean {
  return upstreams.get(target.upstream)?.kind === "offline";
}

/**
 * The guide to connecting a model: the api/README.md section on upstreams
 * (OpenAI-compatible, Anthropic) and model routes, which the playground
 * shows folded at its foot, under {@link CONNECT_A_MODEL_ANCHOR}.
 */
export const CONNECT_A_MODEL_SECTION = "Model routes: upstreams, fallbacks and cooldowns";

/** The fragment of the playground page holding {@link CONNECT_A_MODEL_SECTION}. */
export const CONNECT_A_MODEL_ANCHOR = "connect-a-model";
