import type { Persona } from "../personas/persona.js";

/** A message in the provider's format: the persona prompt and client context are `system`. */
export interface ProviderMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What the persona engine asks of a provider. */
export interface ProviderRequest {
  persona: Persona;
  /** `reply` answers the last user message; `personify` rewrites `source` in the persona's voice. */
  task: "reply" | "personify";
  /** The full prompt: the compiled persona system prompt first, then the mapped history. */
  messages: ProviderMessage[];
  /** For `personify`: the source text to rewrite (also inside the last message's data block). */
  source?: string;
  /** How many independent candidates to return (1–5). */
  candidates: number;
  /** Aborts the upstream call (request closed or timeout). */
  signal: AbortSignal;
}

/** Token counts reported by a provider (for billing). */
export interface ProviderUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A provider's answer: raw candidate texts (normalized later by the engine). */
export interface ProviderResult {
  texts: string[];
  usage?: ProviderUsage;
}

/**
 * One model provider (DESIGN.md "Model providers"). Implementations throw
 * {@link ProviderError} for upstream failures; they never hang past their
 * configured timeout.
 */
export interface ModelProvider {
  readonly name: string;
  complete(request: ProviderRequest): Promise<ProviderResult>;
}

/** An upstream failure: `timeout` when the provider did not answer in time. */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  constructor(
    readonly kind: "timeout" | "upstream",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
