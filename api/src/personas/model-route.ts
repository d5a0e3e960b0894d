import { z } from "zod";

/**
 * Names of upstreams in the operator configuration: letters, digits, `.`,
 * `_` and `-` (no `:`, which separates the upstream from the model in
 * `upstream:model`).
 */
export const upstreamNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][\w.-]{0,63}$/u,
    "an upstream name is 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

/** One target of a route: a model on a named upstream of the operator configuration. */
export const routeTargetSchema = z.strictObject({
  upstream: upstreamNameSchema,
  model: z.string().min(1).max(200),
});

/** A model on a named upstream (see {@link routeTargetSchema}). */
export type RouteTarget = z.output<typeof routeTargetSchema>;

/** Most targets a route may list. */
export const MAX_ROUTE_TARGETS = 8;

/**
 * Parses `upstream:model` (the `--route` option of `persona-admin` and the
 * string form in persona files). The model is everything after the first
 * `:`, so model names with colons (`ollama:llama3.1:8b`) work.
 *
 * @throws {z.ZodError} when either part is missing or the upstream name is invalid
 * @example
 * parseRouteTarget("claude:claude-haiku-4-5") // { upstream: "claude", model: "claude-haiku-4-5" }
 */
export function parseRouteTarget(text: string): RouteTarget {
  return routeTargetTextSchema.parse(text);
}

const routeTargetTextSchema = z.string().transform((text, context) => {
  const colon = text.indexOf(":");
  const result = routeTargetSchema.safeParse({
    upstream: colon < 0 ? text : text.slice(0, colon),
    model: colon < 0 ? "" : text.slice(colon + 1),
  });
  if (!result.success) {
    context.addIssue({
      code: "custom",
      message: `"${text}" is not upstream:model (${result.error.issues[0]?.message ?? "invalid"})`,
    });
    return z.NEVER;
  }
  return result.data;
});

/**
 * A persona's model route (docs/API.md §1.5: the
 * customer never chooses): the targets in the order they are tried. Each is
 * an object or the text `upstream:model`; a target listed twice is refused.
 */
export const modelRouteSchema = z
  .array(z.union([routeTargetSchema, routeTargetTextSchema]))
  .min(1, "a route lists at least one upstream:model target")
  .max(MAX_ROUTE_TARGETS, `a route lists at most ${MAX_ROUTE_TARGETS} targets`)
  .superRefine((targets, context) => {
    const seen = new Set<string>();
    for (const target of targets) {
      const key = `${target.upstream}:${target.model}`;
      if (seen.has(key)) context.addIssue({ code: "custom", message: `${key} is listed twice` });
      seen.add(key);
    }
  });

/** The ordered targets of a persona's route. */
export type ModelRoute = RouteTarget[];

/** The route of a persona file that names none: the offline development engine. */
export const DEFAULT_ROUTE: readonly RouteTarget[] = [
  { upstream: "offline", model: "offline-composer-1" },
];

/**
 * The single-target route of the first format of persona records and files
 * (`provider` + `model`): the providers `offline` and `openai-compatible`
 * became the default upstreams of the same names, so the route is unchanged.
 */
export function routeOfProvider(provider: string, model: string): ModelRoute {
  return [{ upstream: provider, model }];
}

/** `upstream:model`, as logs and the CLI write a target. */
export function describeTarget(target: RouteTarget): string {
  return `${target.upstream}:${target.model}`;
}
