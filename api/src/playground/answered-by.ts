import type { RouteTarget } from "../personas/model-route.js";
import type { Upstreams } from "../providers/upstream-config.js";

/**
 * What the playground says about who answered a turn: the persona version
 * and whether the development engine did. Sent only by the playground's
 * own endpoints, beside the body of /api/v1/generate or /api/v1/personify
 * (those bodies stay exactly as docs/API.md §4 gives them). It never names the
 * upstream or the model: the persona ID selects the behaviour and the
 * customer neither picks nor sees a model (docs/API.md §1.5); the operator sees
 * targets through persona-admin, logs, metrics and traces.
 */
export interface AnsweredBy {
  /** The persona version that answered, as the `Persona-Version` header says. */
  personaVersion: number;
  /**
   * The target is an `offline` upstream: the deterministic development
   * engine, not a language model (the page says so, without naming it).
   */
  development: boolean;
}

/**
 * Describes a turn's answer for the customer.
 *
 * @param target - `EngineOutput.target`: read for its upstream's kind only
 * @param upstreams - the configured upstreams, to tell the development engine by its kind
 * @param personaVersion - the persona version that answered
 * @example
 * describeAnswer({ upstream: "offline", model: "offline-composer-1" }, upstreams, 2);
 * // { personaVersion: 2, development: true }
 */
export function describeAnswer(
  target: RouteTarget,
  upstreams: Upstreams,
  personaVersion: number,
): AnsweredBy {
  return { personaVersion, development: isDevelopmentTarget(target, upstreams) };
}

/** Whether a target's upstream is of kind `offline` (the development engine). */
export function isDevelopmentTarget(target: RouteTarget, upstreams: Upstreams): boolean {
  return upstreams.get(target.upstream)?.kind === "offline";
}
