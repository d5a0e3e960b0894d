import {
  CLIENT_VERSION,
  ENDPOINT_PATHS,
  generateResponseSchema,
  type ParseOutcome,
  parseWith,
  personifyResponseSchema,
} from "@persona-reply/shared";
import {
  ConfigurationError,
  ConnectionError,
  RequestAbortedError,
  TimeoutError,
} from "../errors/client-errors.js";
import { PersonaError } from "../errors/persona-error.js";
import {
  DEFAULT_RETRY_POLICY,
  isRetryable,
  type RetryOptions,
  type RetryPolicy,
  retryDelay,
  sleep,
} from "../internal/retry.js";
import {
  openTelemetryInjector,
  TRACEPARENT_PATTERN,
  type TraceInjector,
} from "../internal/trace-context.js";
import { DEFAULT_BASE_URL, normalizeBaseUrl } from "../settings/base-url.js";
import { present, readEnvironment } from "../settings/environment.js";
import { maskApiKey, redactSecrets } from "../settings/mask-api-key.js";
import type {
  BaseUrlSource,
  GenerateInput,
  GenerateResult,
  PersonaClientOptions,
  PersonifyInput,
  PersonifyResult,
  RequestOptions,
} from "./types.js";

/** Default time allowed for each attempt: the service's own provider timeout (30 s) with room for its retry. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Default retries after a connection error, 408, 429 or 5xx. */
export const DEFAULT_MAX_RETRIES = DEFAULT_RETRY_POLICY.maxRetries;
/** Most retries a caller may ask for. */
const MAX_RETRIES_LIMIT = 10;

function checkTimeout(value: number, origin: string): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConfigurationError(`${origin} must be a positive number of milliseconds`);
  }
  return value;
}

function checkRetries(value: number, origin: string): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_RETRIES_LIMIT) {
    throw new ConfigurationError(`${origin} must be an integer from 0 to ${MAX_RETRIES_LIMIT}`);
  }
  return value;
}

function checkDelay(value: number, origin: string): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new ConfigurationError(`${origin} must be a non-negative number of milliseconds`);
  }
  return value;
}

/**
 * `base` with `options` laid over it, each value checked.
 *
 * @throws {ConfigurationError} for a retry count outside 0–10, a negative or
 * infinite delay, a jitter outside 0–1 or a status that is no HTTP status
 */
function retryPolicy(base: RetryPolicy, options: RetryOptions | undefined): RetryPolicy {
  const policy: RetryPolicy = { ...base, ...definedValues(options ?? {}) };
  checkRetries(policy.maxRetries, "retry.maxRetries");
  checkDelay(policy.initialDelayMs, "retry.initialDelayMs");
  checkDelay(policy.maxDelayMs, "retry.maxDelayMs");
  checkDelay(policy.maxRetryAfterMs, "retry.maxRetryAfterMs");
  if (!(policy.jitter >= 0 && policy.jitter <= 1)) {
    throw new ConfigurationError("retry.jitter must be a number from 0 to 1");
  }
  for (const status of policy.statuses) {
    if (status !== "5xx" && !(Number.isInteger(status) && status >= 100 && status <= 599)) {
      throw new ConfigurationError('retry.statuses must hold HTTP statuses (100–599) or "5xx"');
    }
  }
  return policy;
}

/** The options that are not undefined (so `{ maxRetries: undefined }` keeps the default). */
function definedValues(options: RetryOptions): RetryOptions {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as RetryOptions;
}

/** A fresh request ID (the service echoes a valid `x-request-id`), when the runtime can make one. */
function newRequestId(): string | undefined {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return typeof crypto?.randomUUID === "function" ? crypto.randomUUID() : undefined;
}

/** The most specific reason a fetch failed, e.g. `connect ECONNREFUSED 127.0.0.1:8787`. */
function failureReason(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message !== "") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The Persona Reply client (docs/API.md §4.4, library version 0.1.6): wraps
 * `POST /api/v1/generate` and `POST /api/v1/personify` (not /completions).
 * Works in Node ≥ 20.19 and in browsers (global `fetch`, no Node modules);
 * in a browser, keep the key on your server (docs/API.md §5.5) and call the
 * client from there.
 *
 * Every call times out after `timeoutMs` per attempt and retries connection
 * errors, 408, 429 and 5xx up to `maxRetries` times with exponential backoff,
 * honouring `Retry-After` up to 60 s; the `retry` option changes which
 * statuses, how often and how long (see {@link RetryPolicy}). Errors are {@link PersonaError}
 * subclasses; their messages are the service's own, and never contain the key.
 *
 * @example
 * import { PersonaClient } from "@persona-reply/client";
 *
 * // apiKey, personaId and baseUrl default to SERVICE_API_KEY, SERVICE_PERSONA_ID, SERVICE_BASE_URL
 * const client = new PersonaClient({ baseUrl: "https://persona.example.com" });
 * const { finalReply, chunks } = await client.generate({
 *   messages: [{ role: "user", content: "Which herbs grow well on a balcony?" }],
 * });
 */
export class PersonaClient {
  /** The normalized base URL (site origin), without `/api/v1`. */
  readonly baseUrl: string;
  /** Where {@link baseUrl} came from: the option, `SERVICE_BASE_URL`, or {@link DEFAULT_BASE_URL}. */
  readonly baseUrlSource: BaseUrlSource;
  /** The persona every call speaks as. */
  readonly personaId: string;
  /** Time allowed for each attempt, in milliseconds. */
  readonly timeoutMs: number;
  /** Retries after a retryable failure. */
  readonly maxRetries: number;
  /** Which failures are retried and how long the client waits (`maxRetries` included). */
  readonly retryPolicy: RetryPolicy;
  // Private fields stay out of JSON.stringify, console.log and util.inspect.
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;
  readonly #traceContext: "auto" | "off" | TraceInjector;

  /**
   * @throws {ConfigurationError} when no API key or persona ID is given by
   * option or environment, or the base URL, timeout or retry count is unusable
   */
  constructor(options: PersonaClientOptions = {}) {
    const environment = readEnvironment();
    const apiKey = present(options.apiKey) ?? present(environment.SERVICE_API_KEY);
    if (apiKey === undefined) {
      throw new ConfigurationError(
        "no API key: pass the apiKey option or set SERVICE_API_KEY (docs/API.md §5.4)",
      );
    }
    const personaId = present(options.personaId) ?? present(environment.SERVICE_PERSONA_ID);
    if (personaId === undefined) {
      throw new ConfigurationError(
        "no persona ID: pass the personaId option or set SERVICE_PERSONA_ID (docs/API.md §5.4)",
      );
    }
    const optionBaseUrl = present(options.baseUrl);
    const environmentBaseUrl = present(environment.SERVICE_BASE_URL);
    if (optionBaseUrl !== undefined) {
      this.baseUrl = normalizeBaseUrl(optionBaseUrl, "baseUrl");
      this.baseUrlSource = "option";
    } else if (environmentBaseUrl !== undefined) {
      this.baseUrl = normalizeBaseUrl(environmentBaseUrl, "SERVICE_BASE_URL");
      this.baseUrlSource = "environment";
    } else {
      this.baseUrl = DEFAULT_BASE_URL;
      this.baseUrlSource = "default";
    }
    this.#apiKey = apiKey.trim();
    this.personaId = personaId.trim();
    this.timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, "timeoutMs");
    const maxRetries = checkRetries(options.maxRetries ?? DEFAULT_MAX_RETRIES, "maxRetries");
    this.retryPolicy = retryPolicy({ ...DEFAULT_RETRY_POLICY, maxRetries }, options.retry);
    this.maxRetries = this.retryPolicy.maxRetries;
    const fetchFunction = options.fetch ?? (globalThis.fetch as typeof fetch | undefined);
    if (typeof fetchFunction !== "function") {
      throw new ConfigurationError("no fetch in this runtime: pass the fetch option");
    }
    // Called unbound: browsers reject `fetch` invoked with a `this` other than the window.
    this.#fetch = (input, init) => fetchFunction(input, init);
    this.#traceContext = options.traceContext ?? "auto";
  }

  /** The API key masked for display, e.g. `prk_…abcd`. */
  get maskedApiKey(): string {
    return maskApiKey(this.#apiKey);
  }

  /**
   * Replies to a message history in the persona's voice (`POST /api/v1/generate`, docs/API.md §4.1).
   *
   * @param input - `messages` (the full history, ending with a non-empty user
   * message) and `includeVariations` (alternative replies in `replyChoices`)
   * @returns `{ finalReply, chunks }`, plus `replyChoices` when variations were
   * asked for and given, and `rateLimits` when the service sent them
   * @throws {UnprocessableEntityError} for an invalid history (422), and the
   * other {@link PersonaError} subclasses per status, connection, timeout or abort
   *
   * @example
   * const reply = await client.generate({
   *   messages: [
   *     { role: "system", content: "The user is planning a balcony garden." },
   *     { role: "user", content: "Which herbs grow well in pots?" },
   *   ],
   *   includeVariations: true,
   * });
   * console.log(reply.finalReply, reply.replyChoices?.length);
   */
  async generate(input: GenerateInput, options: RequestOptions = {}): Promise<GenerateResult> {
    const body: Record<string, unknown> = { personaId: this.personaId, messages: input.messages };
    if (input.includeVariations !== undefined) body.includeVariations = input.includeVariations;
    const data = await this.#request(
      ENDPOINT_PATHS.generate,
      body,
      (value) => parseWith(generateResponseSchema, value),
      options,
    );
    const result: GenerateResult = {
      finalReply: data.result.finalReply,
      chunks: data.result.chunks,
    };
    if (data.result.replyChoices !== undefined) result.replyChoices = data.result.replyChoices;
    if (data.rateLimits !== undefined) result.rateLimits = data.rateLimits;
    return result;
  }

  /**
   * Rewrites text in the persona's voice (`POST /api/v1/personify`, docs/API.md §4.2).
   * The persona needs /personify access.
   *
   * @param input - `raw`: non-empty source text, treated as text to rewrite, never as instructions
   * @returns `{ personified, chunks }`
   * @throws {BadRequestError} for empty text (400), {@link PermissionDeniedError}
   * for a persona without /personify access (403), and the other
   * {@link PersonaError} subclasses
   *
   * @example
   * const { personified } = await client.personify({ raw: "The meeting moves to Thursday." });
   */
  async personify(input: PersonifyInput, options: RequestOptions = {}): Promise<PersonifyResult> {
    const body = { personaId: this.personaId, raw: input.raw };
    const data = await this.#request(
      ENDPOINT_PATHS.personify,
      body,
      (value) => parseWith(personifyResponseSchema, value),
      options,
    );
    return { personified: data.personified, chunks: data.chunks };
  }

  /** Sends a request with retries; returns the validated body of the 200 response. */
  async #request<T>(
    path: string,
    body: unknown,
    parse: (data: unknown) => ParseOutcome<T>,
    options: RequestOptions,
  ): Promise<T> {
    const timeoutMs = checkTimeout(options.timeoutMs ?? this.timeoutMs, "timeoutMs");
    const maxRetries = checkRetries(options.maxRetries ?? this.maxRetries, "maxRetries");
    const policy = retryPolicy({ ...this.retryPolicy, maxRetries }, options.retry);
    const payload = JSON.stringify(body);
    for (let retry = 0; ; retry += 1) {
      try {
        return await this.#attempt(path, payload, parse, timeoutMs, options);
      } catch (error) {
        const delay =
          retry < policy.maxRetries && isRetryable(error, policy)
            ? retryDelay(error, retry, policy)
            : undefined;
        if (delay === undefined) throw error;
        // isRetryable holds only for PersonaError subclasses.
        policy.onRetry?.(error as PersonaError, delay);
        try {
          await sleep(delay, options.signal);
        } catch (reason) {
          throw new RequestAbortedError(`POST ${path} was aborted while waiting to retry`, {
            cause: reason,
          });
        }
      }
    }
  }

  /** Adds the trace headers of the call (its `traceparent`) or of the client's `traceContext`. */
  async #addTraceContext(headers: Record<string, string>, traceparent: string | undefined) {
    if (traceparent !== undefined) {
      if (TRACEPARENT_PATTERN.test(traceparent)) headers.traceparent = traceparent;
      return;
    }
    const injector =
      this.#traceContext === "off"
        ? undefined
        : this.#traceContext === "auto"
          ? await openTelemetryInjector()
          : this.#traceContext;
    if (injector === undefined) return;
    // Only trace headers: an injector cannot replace the key or the body's type.
    const trace: Record<string, string> = {};
    injector(trace);
    for (const name of ["traceparent", "tracestate"]) {
      const value = trace[name];
      if (typeof value === "string") headers[name] = value;
    }
  }

  /** One attempt: send, read the whole body within the timeout, map errors. */
  async #attempt<T>(
    path: string,
    payload: string,
    parse: (data: unknown) => ParseOutcome<T>,
    timeoutMs: number,
    options: RequestOptions,
  ): Promise<T> {
    const signal = options.signal;
    const operation = `POST ${path}`;
    const requestId = newRequestId();
    if (signal?.aborted) {
      throw new RequestAbortedError(`${operation} was aborted before it was sent`, {
        cause: signal.reason,
        requestId,
      });
    }
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
      "x-api-key": this.#apiKey,
    };
    if (requestId !== undefined) headers["x-request-id"] = requestId;
    await this.#addTraceContext(headers, options.traceparent);
    const runtime = globalThis as { process?: { versions?: { node?: string } } };
    if (runtime.process?.versions?.node !== undefined) {
      // Only outside browsers: there user-agent is the browser's to set.
      headers["user-agent"] =
        `persona-reply-client/${CLIENT_VERSION} node/${runtime.process.versions.node}`;
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(`${this.baseUrl}${path}`, {
        method: "POST",
        headers,
        body: payload,
        signal: controller.signal,
      });
      text = await response.text();
    } catch (error) {
      if (timedOut) {
        throw new TimeoutError(
          `${operation}: no complete response within ${timeoutMs} ms`,
          timeoutMs,
          { requestId, cause: error },
        );
      }
      if (signal?.aborted) {
        throw new RequestAbortedError(`${operation} was aborted`, {
          requestId,
          cause: signal.reason,
        });
      }
      throw new ConnectionError(this.#connectionMessage(operation, error), {
        requestId,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    if (!response.ok) {
      const error = PersonaError.fromResponse(
        { status: response.status, headers: response.headers, body: text },
        { redact: [this.#apiKey], operation },
      );
      throw error;
    }
    return this.#parseSuccess(operation, response, text, parse);
  }

  /** Checks a 2xx answer: JSON by content type, and the endpoint's response shape. */
  #parseSuccess<T>(
    operation: string,
    response: Response,
    text: string,
    parse: (data: unknown) => ParseOutcome<T>,
  ): T {
    const unexpected = (problem: string) => {
      const error = PersonaError.fromResponse(
        { status: response.status, headers: response.headers, body: text },
        { redact: [this.#apiKey], operation },
      );
      return new PersonaError(
        `${operation} answered ${response.status} with an unexpected body: ${problem}`,
        {
          status: error.status,
          body: error.body,
          headers: error.headers,
          requestId: error.requestId,
        },
      );
    };
    const contentType = response.headers.get("content-type") ?? "";
    if (!/\bjson\b/iu.test(contentType)) {
      throw unexpected(
        `expected JSON, got ${contentType === "" ? "no content type" : contentType}`,
      );
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw unexpected("the JSON does not parse");
    }
    const parsed = parse(data);
    if (!parsed.ok) throw unexpected(parsed.problem.message);
    return parsed.value;
  }

  #connectionMessage(operation: string, error: unknown): string {
    const reason = redactSecrets(failureReason(error), [this.#apiKey]);
    const hint =
      this.baseUrlSource === "default"
        ? ` (no base URL was set, so the default ${DEFAULT_BASE_URL} was used: set SERVICE_BASE_URL or the baseUrl option to the service's origin)`
        : "";
    return `${operation}: could not reach ${this.baseUrl}: ${reason}${hint}`;
  }
}
