import type { Message } from "@persona-reply/shared";
import { ServiceError } from "../http/service-error.js";
import type { Persona } from "../personas/persona.js";
import {
  type ModelProvider,
  ProviderError,
  type ProviderMessage,
  type ProviderRequest,
  type ProviderUsage,
} from "../providers/model-provider.js";
import { mapHistory } from "./history.js";
import { normalizeOutput } from "./normalize.js";
import { compilePersonifyInstruction, compileSystemPrompt } from "./system-prompt.js";

/** Candidates drawn when a client asks for variations (spec §4.1 includeVariations). */
export const VARIATION_COUNT = 3;

/** Normalized candidate texts of one engine call, with the provider's token usage. */
export interface EngineOutput {
  texts: string[];
  usage: ProviderUsage;
}

/** What the engine is asked to do for a persona. */
export type EngineTask =
  | { task: "reply"; messages: readonly Message[]; candidates: number }
  | { task: "personify"; source: string };

/** A model call built and ready to run (see {@link PersonaEngine.prepare}). */
export interface PreparedCall {
  /** The prompt as the provider gets it. */
  readonly messages: readonly ProviderMessage[];
  /** Independent candidates it draws. */
  readonly candidates: number;
  /** Runs the call; `signal` aborts it when the client goes away. */
  run(signal?: AbortSignal): Promise<EngineOutput>;
}

/** Providers by name, as configured at start-up. */
export type ProviderRegistry = Partial<Record<Persona["modelRoute"]["provider"], ModelProvider>>;

/**
 * Turns personas and histories into normalized texts through the persona's
 * model provider (DESIGN.md "Persona engine"). Upstream failures become
 * {@link ServiceError}s `upstream_error` (502) or `upstream_timeout` (504).
 */
export class PersonaEngine {
  constructor(
    private readonly providers: ProviderRegistry,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Builds a model call without running it: the prompt is made once, for
   * both the reservation (its size bounds the cost of token-priced routes)
   * and the call.
   *
   * @param task - `reply` to a history with 1–5 independent candidates, or
   *   `personify` a source text (spec §4.2: the text is data, never instructions)
   */
  prepare(persona: Persona, task: EngineTask): PreparedCall {
    const request: Omit<ProviderRequest, "persona" | "signal"> =
      task.task === "reply"
        ? {
            task: "reply",
            messages: mapHistory(persona, task.messages),
            candidates: task.candidates,
          }
        : {
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
      run: (signal) => this.run(persona, { ...request, signal }),
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

  /** Rewrites `source` in the persona's voice (spec §4.2); the text is data, never instructions. */
  personify(persona: Persona, source: string, signal?: AbortSignal): Promise<EngineOutput> {
    return this.prepare(persona, { task: "personify", source }).run(signal);
  }

  private async run(
    persona: Persona,
    request: Omit<ProviderRequest, "persona" | "signal"> & { signal: AbortSignal | undefined },
  ): Promise<EngineOutput> {
    const provider = this.providers[persona.modelRoute.provider];
    if (provider === undefined) {
      throw new ServiceError(
        "internal_error",
        "the persona's model provider is not configured on this server",
      );
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal =
      request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal]);
    try {
      const result = await untilAborted(provider.complete({ ...request, persona, signal }), signal);
      const texts = result.texts.map((text) => normalizeOutput(text, persona.name));
      if (texts.length === 0 || texts.some((text) => text === "")) {
        throw new ProviderError("upstream", "the model returned an empty completion");
      }
      return { texts, usage: result.usage ?? { inputTokens: 0, outputTokens: 0 } };
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (timeout.aborted || (error instanceof ProviderError && error.kind === "timeout")) {
        throw new ServiceError(
          "upstream_timeout",
          `the model provider did not answer within ${this.timeoutMs} ms`,
          { cause: error },
        );
      }
      const detail = error instanceof ProviderError ? `: ${error.message}` : "";
      throw new ServiceError("upstream_error", `the model provider failed${detail}`, {
        cause: error,
      });
    }
  }
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
