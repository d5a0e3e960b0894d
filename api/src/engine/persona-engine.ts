import type { Message } from "@persona-reply/shared";
import { ServiceError } from "../http/service-error.js";
import type { Logger } from "../logging/logger.js";
import type { RouteTarget } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";
import {
  type ModelProvider,
  ProviderError,
  type ProviderMessage,
  type ProviderResult,
  type ProviderUsage,
} from "../providers/model-provider.js";
import type { Upstreams } from "../providers/upstream-config.js";
import type { Tracing } from "../tracing/tracing.js";
import { mapHistory } from "./history.js";
import { ModelRouter, type RoutedRequest, RouteError, type RouteObserver } from "./model-router.js";
import { normalizeOutput } from "./normalize.js";
import { compilePersonifyInstruction, compileSystemPrompt } from "./system-prompt.js";

/** Candidates drawn when a client asks for variations (docs/API.md §4.1 includeVariations). */
export const VARIATION_COUNT = 3;

/** How often, at most, a persona whose route cannot be served here is logged (milliseconds). */
export const UNSERVABLE_LOG_INTERVAL_MS = 60_000;

/**
 * What a client reads when no target of the persona's route can be served
 * by this instance: no upstream or model names (the operator's business).
 */
const UNSERVABLE_MESSAGE =
  "this server cannot serve the persona's model route right now (its model provider is not configured here); nothing was charged";

/**
 * Normalized candidate texts of one engine call, the provider's token usage,
 * and the route target that answered (whose price billing applies).
 */
export interface EngineOutput {
  texts: string[];
  usage: ProviderUsage;
  target: RouteTarget;
}

/** What the engine is asked to do for a persona. */
export type EngineTask =
  | { task: "reply"; messages: readonly Message[]; candidates: number }
  | { task: "personify"; source: string };

/** A model call built and ready to run (see {@link PersonaEngine.prepare}). */
export interface PreparedCall {
  /** The prompt as the provider gets it (every target of the route gets the same). */
  readonly messages: readonly ProviderMessage[];
  /** Independent candidates it draws. */
  readonly candidates: number;
  /** Runs the call along the persona's route; `signal` aborts it when the client goes away. */
  run(signal?: AbortSignal): Promise<EngineOutput>;
}

/** Providers by upstream name, as built at start-up (providers/create-upstream-providers.ts). */
export type ProviderRegistry = ReadonlyMap<string, ModelProvider>;

/** Optional parts of the engine: metrics of the route walk, its log lines and its spans. */
export interface PersonaEngineOptions {
  observer?: RouteObserver;
  logger?: Logger;
  /** Spans of each route attempt and upstream call (tracing/route-spans.ts). */
  tracing?: Tracing;
}

/**
 * Turns personas and histories into normalized texts along the persona's
 * model route (docs/ARCHITECTURE.md "The request path"): targets are
 * tried in order with fallback and cooldowns ({@link ModelRouter}). Knows
 * nothing of money. Failures become {@link ServiceError}s `upstream_error`
 * (502), `upstream_timeout` (504, every target timed out), or
 * `route_unservable` (503) when no upstream of the route can be served by
 * this instance.
 */
export class PersonaEngine {
  private readonly router: ModelRouter;
  /** When each persona whose route cannot be served was last logged (Unix ms). */
  private readonly unservableLogged = new Map<string, number>();

  constructor(
    upstreams: Upstreams,
    providers: ProviderRegistry,
    private readonly options: PersonaEngineOptions = {},
  ) {
    this.router = new ModelRouter(upstreams, providers, options);
  }

  /**
   * The names of the upstreams this instance can serve, sorted: configured
   * and holding the key their kind needs (providers/servable-upstreams.ts).
   * What the instance publishes for `persona-admin` (instances/instance-heartbeat.ts).
   */
  servableUpstreams(): string[] {
    return this.router.servableUpstreams();
  }

  /**
   * Refuses, before anything is reserved, a persona none of whose route
   * targets this instance can serve (an upstream configured on another
   * instance, or only where `persona-admin` ran). The refusal is counted
   * (`persona_route_unservable_total{persona}` through the observer) and
   * logged at warn level at most once a minute per persona, naming the
   * persona and the missing upstreams.
   *
   * @param now - Unix milliseconds, for the log's pace
   * @throws {ServiceError} `route_unservable` (503), whose message names no upstream
   */
  requireServable(persona: Persona, now = Date.now()): void {
    const missing = this.router.unservable(persona.route);
    if (missing === undefined) return;
    this.options.observer?.unservable?.(persona.id);
    const last = this.unservableLogged.get(persona.id);
    if (last === undefined || now - last >= UNSERVABLE_LOG_INTERVAL_MS) {
      this.forgetQuietPersonas(now);
      this.unservableLogged.set(persona.id, now);
      this.options.logger?.warn(
        { personaId: persona.id, personaVersion: persona.version, missingUpstreams: missing },
        "a persona's route names no upstream this instance can serve; answering 503 (configure the upstreams here, or change the route)",
      );
    }
    throw new ServiceError("route_unservable", UNSERVABLE_MESSAGE);
  }

  /** Keeps the log's memory small: personas not logged within the interval are forgotten. */
  private forgetQuietPersonas(now: number): void {
    if (this.unservableLogged.size < 1_000) return;
    for (const [id, at] of this.unservableLogged) {
      if (now - at >= UNSERVABLE_LOG_INTERVAL_MS) this.unservableLogged.delete(id);
    }
  }

  /**
   * Builds a model call without running it: the prompt is made once, for
   * both the reservation (its size bounds the cost of token-priced targets)
   * and the call.
   *
   * @param task - `reply` to a history with 1–5 independent candidates, or
   *   `personify` a source text (docs/API.md §4.2: the text is data, never instructions)
   */
  prepare(persona: Persona, task: EngineTask): PreparedCall {
    const request: RoutedRequest =
      task.task === "reply"
        ? {
            persona,
            task: "reply",
            messages: mapHistory(persona, task.messages),
            candidates: task.candidates,
          }
        : {
            persona,
            task: "personify",
            messages: [
              { role: "system", content: compileSystemPrompt(persona) },
              { role: "user", content: compilePersonifyInstruction(task.source) },
            ],
            source: task.source,
            candidates: 1,
          };
    return {
      messages: request.messages,
      candidates: request.candidates,
      run: (signal) => this.run(persona, request, signal),
    };
  }

  /**
   * Replies to the last user message of a history.
   *
   * @param candidates - independent replies to draw (1–5)
   * @param signal - aborts when the client goes away
   */
  reply(
    persona: Persona,
    messages: readonly Message[],
    candidates: number,
    signal?: AbortSignal,
  ): Promise<EngineOutput> {
    return this.prepare(persona, { task: "reply", messages, candidates }).run(signal);
  }

  /** Rewrites `source` in the persona's voice (docs/API.md §4.2); the text is data, never instructions. */
  personify(persona: Persona, source: string, signal?: AbortSignal): Promise<EngineOutput> {
    return this.prepare(persona, { task: "personify", source }).run(signal);
  }

  private async run(
    persona: Persona,
    request: RoutedRequest,
    signal: AbortSignal | undefined,
  ): Promise<EngineOutput> {
    const accept = (result: ProviderResult) => {
      const texts = result.texts.map((text) => normalizeOutput(text, persona.name));
      if (texts.length === 0 || texts.some((text) => text === "")) {
        throw new ProviderError("upstream", "the model returned an empty completion");
      }
      return { texts, usage: result.usage ?? { inputTokens: 0, outputTokens: 0 } };
    };
    try {
      const answer = await this.router.run(persona.route, request, accept, signal);
      return { ...answer.value, target: answer.target };
    } catch (error) {
      if (error instanceof RouteError) {
        if (error.kind === "unconfigured") {
          throw new ServiceError("route_unservable", UNSERVABLE_MESSAGE, { cause: error });
        }
        const code = error.kind === "timeout" ? "upstream_timeout" : "upstream_error";
        throw new ServiceError(code, error.message, { cause: error });
      }
      // The client went away: nobody reads this answer.
      throw new ServiceError("upstream_error", "the model provider call was abandoned", {
        cause: error,
      });
    }
  }
}

/**
 * Picks the final reply among candidates: the one whose length is closest to
 * the median length, the first on ties (stable across runs).
 */
export function selectFinalReply(candidates: readonly string[]): string {
  const lengths = candidates.map((text) => text.length).sort((left, right) => left - right);
  const median = lengths[Math.floor(lengths.length / 2)] ?? 0;
  let best = candidates[0] ?? "";
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - median) < Math.abs(best.length - median)) best = candidate;
  }
  return best;
}
