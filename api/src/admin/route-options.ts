import { CommanderError } from "commander";
import {
  describeTarget,
  type ModelRoute,
  modelRouteSchema,
  parseRouteTarget,
} from "../personas/model-route.js";
import type { Services } from "../services.js";

/**
 * A commander option parser collecting repeated `upstream:model` values of
 * an option (`--route`, `--compare-route`) in order.
 *
 * @param option - the option's name, for the message of a malformed value
 */
export function routeTargetCollector(option: string) {
  return (text: string, previous: ModelRoute = []): ModelRoute => {
    try {
      return [...previous, parseRouteTarget(text)];
    } catch {
      throw new CommanderError(
        1,
        "persona.route",
        `${option} ${text}: expected upstream:model, e.g. ${option} openai:gpt-4o-mini`,
      );
    }
  };
}

/** Collects repeated `--route upstream:model` options in order. */
export const collectRouteTarget = routeTargetCollector("--route");

/**
 * Refuses an invalid route (empty, too long, a target twice) and one naming
 * an upstream this environment does not configure (a typo would otherwise
 * surface as failed requests). Run the CLI with the service's
 * `PERSONA_UPSTREAMS_FILE` (or `PERSONA_OPENAI_BASE_URL`).
 */
export function requireConfiguredRoute(
  services: Pick<Services, "config">,
  route: ModelRoute,
): ModelRoute {
  const result = modelRouteSchema.safeParse(route);
  if (!result.success) {
    throw new CommanderError(
      1,
      "persona.route",
      `route: ${result.error.issues[0]?.message ?? "invalid route"}`,
    );
  }
  const upstreams = services.config.upstreams;
  for (const target of result.data) {
    if (!upstreams.has(target.upstream)) {
      throw new CommanderError(
        1,
        "persona.route",
        `${describeTarget(target)}: no upstream named "${target.upstream}" is configured (configured: ${[...upstreams.keys()].join(", ")}); run persona-admin with the service's PERSONA_UPSTREAMS_FILE`,
      );
    }
  }
  return result.data;
}
