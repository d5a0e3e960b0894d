import type { MessageInput, RateLimit } from "@persona-reply/shared";
import type { RetryOptions } from "../internal/retry.js";

/**
 * Options of {@link PersonaClient}. Every option is optional; a missing one
 * falls back to its environment variable (docs/API.md §5.4) where there is a
 * process environment, then to its default.
 */
export interface PersonaClientOptions {
  /** The API key; default `SERVICE_API_KEY`. Required one way or the other. */
  apiKey?: string | undefined;
  /** The persona's UUID; default `SERVICE_PERSONA_ID`. Required one way or the other. */
  personaId?: string | undefined;
  /**
   * The site origin, without `/api/v1` (docs/API.md §4.4); default
   * `SERVICE_BASE_URL`, then {@link DEFAULT_BASE_URL}.
   */
  baseUrl?: string | undefined;
  /** Time allowed for each attempt, in milliseconds; default 60 000. */
  timeoutMs?: number | undefined;
  /** Retries after a connection error, 408, 429 or 5xx; default 2 (so 3 attempts at most). */
  maxRetries?: number | undefined;
  /**
   * Which failures are retried and how long to wait, over the default
   * (connection errors, 408, 429 and 5xx; backoff 0.5–8 s; `Retry-After` up
   * to 60 s). Its `maxRetries` wins over the option of that name.
   */
  retry?: RetryOptions | undefined;
  /** The fetch to use; default the global `fetch` (Node ≥ 20.19, browsers). */
  fetch?: typeof fetch | undefined;
  /**
   * How requests carry the caller's trace (W3C `traceparent`), so the
   * service's spans join it:
   *
   * - `"auto"` (default): through `@opentelemetry/api` when the application
   *   has it (an optional peer dependency, loaded only if it resolves) —
   *   the active context, written by the application's registered propagator;
   * - a function: called with each attempt's headers to add trace headers,
   *   e.g. `(headers) => propagation.inject(context.active(), headers)`
   *   where the automatic load does not work (a browser bundle);
   * - `"off"`: never.
   *
   * A call's own `traceparent` option wins over all three.
   */
  traceContext?: "auto" | "off" | ((headers: Record<string, string>) => void) | undefined;
}

/** Options of one call. */
export interface RequestOptions {
  /** Aborts the call (and any wait before a retry); it then throws {@link RequestAbortedError}. */
  signal?: AbortSignal | undefined;
  /** Time allowed for each attempt of this call, in milliseconds. */
  timeoutMs?: number | undefined;
  /** Retries for this call, overriding the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /** The retry policy of this call, laid over the client's (its `maxRetries` wins). */
  retry?: RetryOptions | undefined;
  /**
   * The W3C `traceparent` this call continues (e.g. one an MCP request
   * carried), instead of the client's `traceContext`. A value that is not a
   * valid traceparent is not sent.
   */
  traceparent?: string | undefined;
}

/** Input of {@link PersonaClient.generate} (docs/API.md §4.1, §4.4). */
export interface GenerateInput {
  /**
   * The full history, oldest first; the last message must be a user message
   * with non-empty content (docs/API.md §4.1 rules 1–3).
   */
  messages: MessageInput[];
  /** Ask for alternative replies in `replyChoices`; default false. */
  includeVariations?: boolean | undefined;
}

/** Result of {@link PersonaClient.generate} (docs/API.md §2 Reply result, §4.1). */
export interface GenerateResult {
  /** The selected reply. */
  finalReply: string;
  /** The reply split into message-sized pieces. */
  chunks: string[];
  /** Alternative replies; only possibly present when `includeVariations` was true. */
  replyChoices?: string[];
  /** The account's rate-limit windows, when the service sent them. */
  rateLimits?: RateLimit[];
}

/** Input of {@link PersonaClient.personify} (docs/API.md §4.2). */
export interface PersonifyInput {
  /** Non-empty source text to rewrite; treated as text, never as instructions. */
  raw: string;
}

/** Result of {@link PersonaClient.personify} (docs/API.md §4.2). */
export interface PersonifyResult {
  /** The rewritten text. */
  personified: string;
  /** The rewritten text split into pieces. */
  chunks: string[];
}

/** Where the client's base URL came from. */
export type BaseUrlSource = "option" | "environment" | "default";
