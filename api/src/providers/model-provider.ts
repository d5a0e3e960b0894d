import type { Persona } from "../personas/persona.js";

/** A message in the provider's format: the persona prompt and client context are `system`. */
export interface ProviderMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** What the persona engine asks of a provider. */
export interface ProviderRequest {
  persona: Persona;
  /** The model to ask, as the route target names it on this upstream. */
  model: string;
  /**
   * Output tokens one candidate may use at most (the upstream's setting).
   * Providers whose protocol requires a cap (Anthropic's `max_tokens`) send it.
   */
  maxOutputTokens: number;
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
  /** The model that answered, as the upstream names it (a trace attribute), when it says. */
  model?: string;
}

/**
 * One model provider: one configured upstream
 * speaking one protocol. Implementations throw {@link ProviderError} for
 * upstream failures; they never hang past their configured timeout.
 */
export interface ModelProvider {
  /** The upstream's name in the operator configuration (a metric label, never a secret). */
  readonly name: string;
  complete(request: ProviderRequest): Promise<ProviderResult>;
}

/**
 * How a provider reaches its upstream (server configuration, never the
 * customer's): what the SDK-based providers are built from.
 */
export interface UpstreamConnection {
  /** The upstream's name in the operator configuration (metrics label). */
  name: string;
  /**
   * `openai-compatible`: up to `/v1`, e.g. `https://api.openai.com/v1` or
   * `http://127.0.0.1:11434/v1` (Ollama); `anthropic`: the origin, e.g.
   * `https://api.anthropic.com`.
   */
  baseUrl: string;
  /** Upstream key; local servers accept any non-empty value. Never logged. */
  apiKey: string;
  /** Per-attempt timeout in milliseconds (the engine's deadline covers the retries too). */
  timeoutMs: number;
  /** SDK retries on connection errors, 408/409/429/5xx (and Anthropic's 529). */
  maxRetries: number;
}

/**
 * How a provider call failed, which decides what the route does next:
 *
 * - `timeout`: no answer in time — the next target of the route is tried;
 * - `upstream`: the upstream is unwell or unreachable (5xx, 429, connection
 *   errors, unreadable or empty answers, its own key refused) — the next
 *   target is tried;
 * - `request`: the upstream refused this request's content (400, 413, 422) —
 *   another upstream would refuse it too, so no other target is tried.
 */
export type ProviderFailureKind = "timeout" | "upstream" | "request";

/** An upstream failure; see {@link ProviderFailureKind}. */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  constructor(
    readonly kind: ProviderFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
