import type { Logger } from "../logging/logger.js";
import { describeTarget, type RouteTarget } from "../personas/model-route.js";
import {
  type ModelProvider,
  ProviderError,
  type ProviderFailureKind,
  type ProviderRequest,
  type ProviderResult,
} from "../providers/model-provider.js";
import { isServable, servableUpstreams } from "../providers/servable-upstreams.js";
import {
  maxOutputTokensOfModel,
  type Upstream,
  type Upstreams,
} from "../providers/upstream-config.js";
import { traceAttempt, traceChat } from "../tracing/route-spans.js";
import type { Tracing } from "../tracing/tracing.js";
import { TargetCooldowns } from "./target-cooldowns.js";

/** How one attempt on a target ended (the `outcome` label of the attempt metric). */
export type AttemptOutcome = "ok" | ProviderFailureKind | "aborted";

/** Why a route moved on from a target to the next one. */
export type FallbackReason = "failure" | "cooldown";

/**
 * What the router reports as it walks a route, for metrics; upstream names
 * and persona IDs only (bounded label values), never models or prompts.
 */
export interface RouteObserver {
  /** An attempt on a target of this upstream ended. */
  attempted(upstream: string, outcome: AttemptOutcome): void;
  /** The route moved on from a target of this upstream to the next target. */
  fellBack(upstream: string, reason: FallbackReason): void;
  /** A target of this upstream started a cooldown. */
  cooledDown(upstream: string): void;
  /**
   * A request to this persona was refused: no target of its route can be
   * served here (reported by the persona engine before any money is held).
   */
  unservable?(persona: string): void;
}

/**
 * Every target of a route failed (or the last one tried refused the request
 * itself). `kind` is `timeout` when every attempt timed out, `request` when
 * the upstream refused the request's content, else `upstream`;
 * `unconfigured` when no target names an upstream this process can serve
 * (see {@link ModelRouter.unservable}).
 */
export class RouteError extends Error {
  override readonly name = "RouteError";
  constructor(
    readonly kind: ProviderFailureKind | "unconfigured",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The engine's part of a provider request; the router adds the target's model, cap and signal. */
export type RoutedRequest = Omit<ProviderRequest, "model" | "maxOutputTokens" | "signal">;

/** What answered, and its accepted answer. */
export interface RoutedAnswer<T> {
  value: T;
  target: RouteTarget;
}

interface Failure {
  target: RouteTarget;
  error: ProviderError;
  timeoutMs: number;
}

/**
 * Walks a persona's route (issue "Model routes like a gateway"; LiteLLM's
 * and Portkey's ordered fallbacks with cooldowns): each target in order gets
 * one attempt with its upstream's deadline (`timeoutMs`, the SDK's own
 * retries included). A target that times out, answers 5xx or 429, cannot be
 * reached, or gives an answer `accept` refuses (an empty completion) is
 * skipped for the next; a request the upstream refused for its content
 * (400, 413, 422) ends the walk, since another upstream would refuse it too.
 * A target in cooldown ({@link TargetCooldowns}) is skipped without waiting
 * — unless every target was skipped, in which case the first cooled one is
 * tried anyway (a likely failure beats a certain one; a one-target route
 * thus behaves as without cooldowns). A client that goes away ends the walk.
 */
export class ModelRouter {
  private readonly cooldowns: TargetCooldowns;
  private readonly unconfiguredSeen = new Set<string>();

  constructor(
    private readonly upstreams: Upstreams,
    private readonly providers: ReadonlyMap<string, ModelProvider>,
    private readonly options: { observer?: RouteObserver; logger?: Logger; tracing?: Tracing } = {},
  ) {
    this.cooldowns = new TargetCooldowns((target) => {
      const upstream = this.upstreams.get(target.upstream);
      options.observer?.cooledDown(target.upstream);
      options.logger?.warn(
        { target: describeTarget(target), cooldownMs: upstream?.cooldownMs },
        "model target failed repeatedly; skipping it during its cooldown",
      );
    });
  }

  /** The names of the upstreams this process can serve, sorted (providers/servable-upstreams.ts). */
  servableUpstreams(): string[] {
    return servableUpstreams(this.upstreams, this.providers);
  }

  /**
   * The upstreams of a route this process cannot serve, when it can serve
   * none of the route's targets (not configured here, or without the key
   * its kind needs); undefined when at least one target can be tried.
   */
  unservable(route: readonly RouteTarget[]): string[] | undefined {
    const missing = new Set<string>();
    for (const target of route) {
      if (isServable(this.upstreams.get(target.upstream), this.providers)) return undefined;
      missing.add(target.upstream);
    }
    return [...missing];
  }

  /**
   * Runs a provider request along a route.
   *
   * @param accept - turns a provider's answer into the caller's value; a
   *   {@link ProviderError} it throws counts as that target's failure
   * @param clientSignal - aborts when the client goes away
   * @throws {RouteError} when no target answered; the client's abort reason when it went away
   */
  async run<T>(
    route: readonly RouteTarget[],
    request: RoutedRequest,
    accept: (result: ProviderResult) => T,
    clientSignal?: AbortSignal,
  ): Promise<RoutedAnswer<T>> {
    const failures: Failure[] = [];
    const call: RouteCall<T> = { request, accept, clientSignal };
    const cooling: RouteStep[] = [];
    let configured = 0;
    for (const [index, target] of route.entries()) {
      const upstream = this.upstreams.get(target.upstream);
      const provider = this.providers.get(target.upstream);
      if (!isServable(upstream, this.providers) || provider === undefined) {
        this.warnUnconfigured(target);
        continue;
      }
      configured += 1;
      const step: RouteStep = { index, target, upstream, provider };
      const attempt = () => this.attempt(step, call);
      const isLast = index === route.length - 1;
      try {
        const outcome = await this.cooldowns.run(target, upstream, attempt);
        if (!outcome.skipped) return { value: outcome.value, target };
        cooling.push(step);
        if (!isLast) this.options.observer?.fellBack(target.upstream, "cooldown");
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        failures.push({ target, error, timeoutMs: upstream.timeoutMs });
        if (error.kind === "request") throw summarize(failures);
        if (!isLast) {
          this.options.observer?.fellBack(target.upstream, "failure");
          this.options.logger?.warn(
            { target: describeTarget(target), reason: error.message },
            "model target failed; trying the next target of the route",
          );
        }
      }
    }
    const [cooled] = cooling;
    if (failures.length === 0 && cooled !== undefined) {
      // Every configured target is cooling down: try the first anyway.
      const { target, upstream } = cooled;
      this.options.logger?.warn(
        { target: describeTarget(target) },
        "every target of the route is cooling down; trying the first anyway",
      );
      try {
        const value = await this.attempt(cooled, call);
        return { value, target };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        failures.push({ target, error, timeoutMs: upstream.timeoutMs });
      }
    }
    if (configured === 0) {
      throw new RouteError(
        "unconfigured",
        "the persona's model provider is not configured on this server",
      );
    }
    throw summarize(failures);
  }

  /** Logs a route target whose upstream is not configured, once per target and process. */
  private warnUnconfigured(target: RouteTarget): void {
    const key = describeTarget(target);
    if (this.unconfiguredSeen.has(key)) return;
    this.unconfiguredSeen.add(key);
    this.options.logger?.warn(
      { target: key },
      "a persona's route names an upstream that is not configured; skipping it",
    );
  }

  /**
   * One attempt on one target (the `index`th of the route), in a span when
   * tracing is on ({@link traceAttempt}).
   */
  private attempt<T>(step: RouteStep, call: RouteCall<T>): Promise<T> {
    const tracing = this.options.tracing;
    const work = () => this.tryTarget(step, call);
    return tracing === undefined
      ? work()
      : traceAttempt(
          tracing,
          step.target,
          step.index,
          call.request.persona,
          call.clientSignal,
          work,
        );
  }

  /**
   * One attempt on one target under its upstream's deadline. Throws a
   * {@link ProviderError} for anything that went wrong upstream (the
   * deadline included), or the client's abort reason when it went away.
   */
  private async tryTarget<T>(
    { target, upstream, provider }: RouteStep,
    { request, accept, clientSignal }: RouteCall<T>,
  ): Promise<T> {
    const timeoutMs = upstream.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal =
      clientSignal === undefined ? deadline : AbortSignal.any([deadline, clientSignal]);
    const observer = this.options.observer;
    const tracing = this.options.tracing;
    const call: ProviderRequest = {
      ...request,
      model: target.model,
      maxOutputTokens: maxOutputTokensOfModel(upstream, target.model),
      signal,
    };
    try {
      const result = await untilAborted(
        tracing === undefined
          ? provider.complete(call)
          : traceChat(tracing, upstream, target, call, () => provider.complete(call)),
        signal,
      );
      const value = accept(result);
      observer?.attempted(target.upstream, "ok");
      return value;
    } catch (error) {
      if (clientSignal?.aborted === true) {
        observer?.attempted(target.upstream, "aborted");
        throw error;
      }
      const failure =
        deadline.aborted && !(error instanceof ProviderError && error.kind === "request")
          ? new ProviderError("timeout", `did not answer within ${timeoutMs} ms`, { cause: error })
          : error instanceof ProviderError
            ? error
            : new ProviderError("upstream", "the upstream answer could not be read", {
                cause: error,
              });
      observer?.attempted(target.upstream, failure.kind);
      throw failure;
    }
  }
}

/** One target of a route that can be tried: its place in the route, its upstream and provider. */
interface RouteStep {
  index: number;
  target: RouteTarget;
  upstream: Upstream;
  provider: ModelProvider;
}

/** What every attempt of one routed call shares: the request, how a result is accepted, the client's signal. */
interface RouteCall<T> {
  request: RoutedRequest;
  accept: (result: ProviderResult) => T;
  clientSignal: AbortSignal | undefined;
}

/**
 * The error of a route whose targets all failed, in words a client may
 * read: what the one attempt met, or for several, how many were tried. No
 * upstream or model names: they are the operator's business.
 */
function summarize(failures: readonly Failure[]): RouteError {
  const last = failures.at(-1);
  if (last === undefined) {
    return new RouteError("upstream", "the model provider failed: no target could be tried");
  }
  const tried = failures.length === 1 ? "" : ` (${failures.length} targets tried)`;
  if (failures.every((failure) => failure.error.kind === "timeout")) {
    const within = failures.map((failure) => `${failure.timeoutMs} ms`).join(", then ");
    return new RouteError("timeout", `the model provider did not answer within ${within}${tried}`, {
      cause: last.error,
    });
  }
  const told = [...failures].reverse().find((failure) => failure.error.kind !== "timeout") ?? last;
  return new RouteError(
    told.error.kind === "request" ? "request" : "upstream",
    `the model provider failed: ${told.error.message}${tried}`,
    { cause: told.error },
  );
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts — whichever
 * comes first — so the deadline holds even while a provider waits on
 * something that ignores the signal (the openai SDK sleeps before a retry,
 * for as long as a `Retry-After` asks, without watching the signal). The
 * abandoned work's late failure is swallowed.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
