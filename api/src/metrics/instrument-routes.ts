import type { RouteObserver } from "../engine/model-router.js";
import type { Metrics } from "./metrics.js";

/**
 * The route walk's metrics (issue "Model routes like a gateway"), recorded
 * by the router where each event happens: attempts per upstream and outcome
 * (`persona_upstream_attempts_total`), fallbacks from an upstream to the next
 * target by reason (`persona_upstream_fallbacks_total`), cooldowns
 * started (`persona_upstream_cooldowns_total`), and requests refused
 * because no target of the persona's route can be served by this instance
 * (`persona_route_unservable_total`).
 *
 * @example
 * new PersonaEngine(upstreams, providers, { observer: routeObserverOf(metrics) });
 */
export function routeObserverOf(metrics: Metrics): RouteObserver {
  return {
    attempted: (upstream, outcome) => metrics.upstreamAttempts.inc({ upstream, outcome }),
    fellBack: (upstream, reason) => metrics.upstreamFallbacks.inc({ upstream, reason }),
    cooledDown: (upstream) => metrics.upstreamCooldowns.inc({ upstream }),
    unservable: (persona) => metrics.routeUnservable.inc({ persona }),
  };
}
