import type { Express, RequestHandler } from "express";
import { listRoutes, type RouteMatcher, routeMatchers } from "../http/route-inventory.js";
import { onSocketGone } from "../http/socket-gone.js";
import type { Metrics } from "./metrics.js";

/** Paths whose route label is remembered. */
const MAX_CACHED_LABELS = 1_000;

/** Label value of requests no route matched (unknown paths are never label values). */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * The route template a request is labelled with: the route of the same
 * method first (so `POST /api/v1/generate` is not taken for the 405
 * catch-all of that path), then a catch-all route, else `unmatched`.
 */
export function routeLabel(matchers: readonly RouteMatcher[], method: string, pathname: string) {
  const exact = matchers.find((m) => m.method !== "ALL" && m.matches(method, pathname));
  const any = exact ?? matchers.find((m) => m.matches(method, pathname));
  return any?.path ?? UNMATCHED_ROUTE;
}

/**
 * The route template of a request's method and path ({@link routeLabel}),
 * for metric labels and span names: the templates of `app` are read on the
 * first call, when every route is registered, and recent paths remembered.
 *
 * @returns `(method, pathname) => template`, {@link UNMATCHED_ROUTE} when none matches
 */
export function createRouteLabeller(app: Express): (method: string, pathname: string) => string {
  let matchers: RouteMatcher[] | undefined;
  // Labels of recent paths: matching every route template on every request costs more than the rest.
  const labels = new Map<string, string>();
  return (method, pathname) => {
    const key = `${method} ${pathname}`;
    let route = labels.get(key);
    if (route === undefined) {
      matchers ??= routeMatchers(listRoutes(app));
      route = routeLabel(matchers, method, pathname);
      // Bounded: a scan of random paths only ever fills it once.
      if (labels.size < MAX_CACHED_LABELS) labels.set(key, route);
    }
    return route;
  };
}

/**
 * Counts every request by route template, method and status, and times it
 * (the 429s of the rate limiter and of the balance check are counted where
 * they are decided, pipeline/admission.ts). A request whose client left before the answer was written has status
 * `aborted`; so has one still queued when its connection was dropped.
 *
 * @param app - the application whose routes label the requests; read on
 *   the first request, when every route is registered
 */
export function createMetricsMiddleware(metrics: Metrics, app: Express): RequestHandler {
  const labelOf = createRouteLabeller(app);
  return (request, response, next) => {
    const started = process.hrtime.bigint();
    metrics.httpInFlight.inc();
    let counted = false;
    const finish = () => {
      if (counted) return;
      counted = true;
      cancelSocketWatch();
      metrics.httpInFlight.dec();
      // `request.path` is relative to the router that answered (e.g. "/generate" inside /api/v1).
      const pathname = request.originalUrl.split("?")[0] ?? "";
      const route = labelOf(request.method, pathname);
      const status = response.headersSent ? String(response.statusCode) : "aborted";
      const labels = { route, method: request.method, status };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    };
    response.once("close", finish);
    // A response queued behind others on a destroyed connection never emits `close`.
    const cancelSocketWatch = onSocketGone(request.socket, finish);
    next();
  };
}
