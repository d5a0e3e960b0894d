import { CommanderError } from "commander";
import {
  describeInstance,
  instancesLacking,
  liveInstances,
  STALE_AFTER_MS,
} from "../instances/live-instances.js";
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
  const valid = requireValidRoute(route);
  const upstreams = services.config.upstreams;
  for (const target of valid) {
    if (!upstreams.has(target.upstream)) {
      throw new CommanderError(
        1,
        "persona.route",
        `${describeTarget(target)}: no upstream named "${target.upstream}" is configured (configured: ${[...upstreams.keys()].join(", ")}); run persona-admin with the service's PERSONA_UPSTREAMS_FILE`,
      );
    }
  }
  return valid;
}

/**
 * Refuses an empty or overlong route, or one listing a target twice.
 *
 * @throws {CommanderError} `persona.route`
 */
export function requireValidRoute(route: ModelRoute): ModelRoute {
  const result = modelRouteSchema.safeParse(route);
  if (!result.success) {
    throw new CommanderError(
      1,
      "persona.route",
      `route: ${result.error.issues[0]?.message ?? "invalid route"}`,
    );
  }
  return result.data;
}

/** What {@link requireServableRoute} let through. */
export interface ServableRoute {
  route: ModelRoute;
  /**
   * Set when `--force` let through a route the check refused: what was
   * overridden (`forced: web-2:812 (started …) lacked claude`), kept in
   * the version's note (`VersionOptions.forced`).
   */
  forced?: string;
}

/** How {@link requireServableRoute} checks. */
export interface ServableRouteOptions {
  /** `--force`: let a route through that the check refuses, and say so in the version's note. */
  force?: boolean;
  /**
   * A draft serves nothing until `persona promote`, which checks again: it
   * is not refused for what running instances lack, only told (with no
   * instance running, this process's upstreams decide, as for any route).
   */
  draft?: boolean;
  /** The route serving now: a route equal to it changes nothing and is not checked. */
  current?: ModelRoute;
  /** Where notices go (standard error). */
  warn(text: string): void;
}

function sameRoute(left: ModelRoute, right: ModelRoute): boolean {
  return JSON.stringify(left.map(describeTarget)) === JSON.stringify(right.map(describeTarget));
}

/**
 * The check of a route that is about to serve customers (`persona create`,
 * `update`, `promote`, `rollback`): every running instance of the service
 * must serve every upstream the route names — each instance publishes its
 * servable upstreams through the store (instances/instance-heartbeat.ts) —
 * or it would answer 503 for the persona. A refusal names each instance
 * (name and start time) and the upstreams it lacks. With no instance
 * running, the route is checked against this process's own upstream
 * configuration ({@link requireConfiguredRoute}), and a notice says so.
 * `--force` lets the route through anyway, recorded in the version's note.
 *
 * @throws {CommanderError} `persona.route` for an invalid route or one
 *   this configuration lacks with no instance running,
 *   `persona.route_unservable` when a running instance lacks an upstream
 * @throws {StorageUnavailableError} when the store cannot be read in time
 */
export async function requireServableRoute(
  services: Pick<Services, "config" | "database">,
  route: ModelRoute,
  options: ServableRouteOptions,
): Promise<ServableRoute> {
  const checked = requireValidRoute(route);
  if (options.current !== undefined && sameRoute(checked, options.current)) {
    return { route: checked };
  }
  /** A refused route: thrown, or told (a draft instances lack), or let through with `--force` and recorded. */
  const refuse = (refusal: CommanderError, forced: string, tellDraft: boolean): ServableRoute => {
    if (tellDraft && options.draft === true) {
      options.warn(`${refusal.message} (a draft is not refused: persona promote checks again)`);
      return { route: checked };
    }
    if (options.force !== true) throw refusal;
    options.warn(`${forced} (--force; kept in the version's note)`);
    return { route: checked, forced };
  };
  const instances = await liveInstances(services.database);
  if (instances.length === 0) {
    options.warn(
      `no instance of the service is running (none wrote a heartbeat in the last ${STALE_AFTER_MS / 1000} s): the route was checked against this persona-admin's own upstream configuration`,
    );
    try {
      requireConfiguredRoute(services, checked);
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
      const missing = checked
        .map((target) => target.upstream)
        .filter((upstream) => !services.config.upstreams.has(upstream));
      return refuse(
        new CommanderError(1, error.code, `${error.message}, or pass --force`),
        `forced: no instance was running and persona-admin's configuration lacked ${[...new Set(missing)].join(", ")}`,
        false,
      );
    }
    return { route: checked };
  }
  const gaps = instancesLacking(checked, instances);
  if (gaps.length === 0) return { route: checked };
  const lacking = gaps
    .map((gap) => `${describeInstance(gap.instance)} lacks ${gap.missing.join(", ")}`)
    .join("; ");
  return refuse(
    new CommanderError(
      1,
      "persona.route_unservable",
      `route ${checked.map(describeTarget).join(", ")}: ${gaps.length} of ${instances.length} running instances lack its upstreams: ${lacking}; configure the upstreams there (PERSONA_UPSTREAMS_FILE and their key variables) and restart them, or pass --force (they then answer 503 for this persona)`,
    ),
    `forced: ${gaps
      .map((gap) => `${describeInstance(gap.instance)} lacked ${gap.missing.join(", ")}`)
      .join("; ")}`,
    true,
  );
}
