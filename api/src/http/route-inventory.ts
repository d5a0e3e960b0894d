import { METHODS } from "node:http";
import type { Express } from "express";

/** One route of the application: an HTTP method and an express path template. */
export interface RouteEntry {
  /** Upper-case method, or `ALL` for a route that answers every method (`app.all`). */
  method: string;
  /** Path template as express writes it, e.g. `/keys/:id/revoke`. */
  path: string;
}

/** The parts of express 5's router (the `router` package 2.x) this walker reads. */
interface RouterLayer {
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
}

function pathsOf(raw: unknown): string[] {
  if (typeof raw === "string") return [raw];
  if (Array.isArray(raw))
    return raw.flat(Number.POSITIVE_INFINITY).filter((p) => typeof p === "string");
  return [];
}

function join(prefix: string, path: string): string {
  const joined = `${prefix}${path === "/" && prefix !== "" ? "" : path}`;
  return joined === "" ? "/" : joined;
}

function walk(stack: readonly RouterLayer[], prefix: string, into: RouteEntry[]): void {
  for (const layer of stack) {
    if (layer.route !== undefined) {
      const methods = Object.keys(layer.route.methods).filter((m) => layer.route?.methods[m]);
      // express 5's `app.all` registers the route once per method Node knows.
      const all =
        methods.includes("_all") ||
        METHODS.every((method) => methods.includes(method.toLowerCase()));
      for (const path of pathsOf(layer.route.path)) {
        for (const method of all ? ["ALL"] : methods.map((m) => m.toUpperCase())) {
          into.push({ method, path: join(prefix, path) });
        }
      }
    } else if (Array.isArray(layer.handle?.stack)) {
      // A mounted router: `app.use("/api/v1", router)` keeps "/api/v1" as the layer's rawPath.
      const mounts =
        layer.slash === true ? [""] : pathsOf(layer.rawPath).map((p) => (p === "/" ? "" : p));
      for (const mount of mounts.length === 0 ? [""] : mounts) {
        walk(layer.handle.stack, `${prefix}${mount}`, into);
      }
    }
  }
}

/**
 * Lists every route of an express 5 application by walking its router
 * stack, nested routers included, in registration order and without
 * duplicates. Middleware that is not a route (parsers, the 404 and error
 * handlers) is not listed. Used by the metrics (route templates as label
 * values) and by the OpenAPI test (every route documented, and only those).
 *
 * @example
 * listRoutes(createApp(services)) // [{ method: "GET", path: "/healthz" }, { method: "POST", path: "/api/v1/generate" }, …]
 */
export function listRoutes(app: Express): RouteEntry[] {
  const router = (app as unknown as { router?: { stack?: RouterLayer[] } }).router;
  const entries: RouteEntry[] = [];
  walk(router?.stack ?? [], "", entries);
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = `${entry.method} ${entry.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A route template turned into a matcher of concrete request paths. */
export interface RouteMatcher {
  method: string;
  path: string;
  matches(method: string, pathname: string): boolean;
}

function templatePattern(template: string): RegExp {
  const source = template
    .split("/")
    .map((segment) => {
      if (segment.startsWith(":")) return "[^/]+";
      if (segment.startsWith("*") || segment.startsWith("{*")) return ".*";
      return segment.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
    })
    .join("/");
  // Express matches with an optional trailing slash and case-insensitively by default.
  return new RegExp(`^${source}/?$`, "iu");
}

/**
 * Matchers for route templates, so a concrete path such as
 * `/keys/5f…/revoke` is labelled with its template `/keys/:id/revoke`.
 * GET routes also match HEAD, as express answers HEAD with them.
 */
export function routeMatchers(routes: readonly RouteEntry[]): RouteMatcher[] {
  return routes.map((route) => {
    const pattern = templatePattern(route.path);
    return {
      method: route.method,
      path: route.path,
      matches(method, pathname) {
        const methodMatches =
          route.method === "ALL" ||
          route.method === method ||
          (route.method === "GET" && method === "HEAD");
        return methodMatches && pattern.test(pathname);
      },
    };
  });
}
