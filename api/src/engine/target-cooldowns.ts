import type { CircuitBreakerPolicy } from "cockatiel";
import { describeTarget, type RouteTarget } from "../personas/model-route.js";
import { ProviderError } from "../providers/model-provider.js";

/** When a target starts and how long it stays in cooldown (its upstream's settings). */
export interface CooldownSettings {
  /** Consecutive failures that start a cooldown. */
  cooldownAfterFailures: number;
  /** Milliseconds the target is skipped before one trial call is let through. */
  cooldownMs: number;
}

/** What running work under a target's breaker gave. */
export type CooldownOutcome<T> = { skipped: true } | { skipped: false; value: T };

type Cockatiel = typeof import("cockatiel");
let loading: Promise<Cockatiel> | undefined;

/**
 * cockatiel, loaded on the first routed call, so processes that never call
 * a model (the operator CLI) do not pay for loading it.
 */
function loadCockatiel(): Promise<Cockatiel> {
  loading ??= import("cockatiel");
  return loading;
}

/**
 * Failures that say the target is unwell (a timeout, a 5xx or 429, an
 * unreachable or unreadable upstream) count towards a cooldown; a request
 * the upstream refused for its content, and a client that went away, do not.
 */
function countsAsFailure(error: Error): boolean {
  return error instanceof ProviderError && error.kind !== "request";
}

/**
 * One circuit breaker per route target (upstream and model), shared by
 * every persona routed to it, built on cockatiel's `circuitBreaker` with a
 * `ConsecutiveBreaker`: after `cooldownAfterFailures` failures in a row the
 * target is skipped for `cooldownMs`; then one trial call is let through —
 * its success ends the cooldown, its failure starts another. Calls that
 * arrive while a trial is under way skip the target rather than wait for the
 * trial. State lives in this process (each instance keeps its own).
 */
export class TargetCooldowns {
  private readonly breakers = new Map<string, CircuitBreakerPolicy>();

  /** @param onCooldown - called each time a target starts a cooldown */
  constructor(private readonly onCooldown: (target: RouteTarget) => void = () => undefined) {}

  /**
   * Runs `work` under the target's breaker, or skips it while the target
   * cools down. The work's own failure is rethrown whether or not it counted.
   */
  async run<T>(
    target: RouteTarget,
    settings: CooldownSettings,
    work: () => Promise<T>,
  ): Promise<CooldownOutcome<T>> {
    const cockatiel = await loadCockatiel();
    const breaker = this.breakerOf(cockatiel, target, settings);
    // cockatiel makes calls during a trial wait for its end; a route has better to do.
    if (breaker.state === cockatiel.CircuitState.HalfOpen) return { skipped: true };
    try {
      return { skipped: false, value: await breaker.execute(work) };
    } catch (error) {
      // Open (cooling down) or isolated; cockatiel's IsolatedCircuitError is a BrokenCircuitError.
      if (error instanceof cockatiel.BrokenCircuitError) return { skipped: true };
      throw error;
    }
  }

  private breakerOf(
    cockatiel: Cockatiel,
    target: RouteTarget,
    settings: CooldownSettings,
  ): CircuitBreakerPolicy {
    const key = describeTarget(target);
    let breaker = this.breakers.get(key);
    if (breaker === undefined) {
      breaker = cockatiel.circuitBreaker(cockatiel.handleWhen(countsAsFailure), {
        halfOpenAfter: settings.cooldownMs,
        breaker: new cockatiel.ConsecutiveBreaker(settings.cooldownAfterFailures),
      });
      breaker.onBreak(() => this.onCooldown(target));
      this.breakers.set(key, breaker);
    }
    return breaker;
  }
}
