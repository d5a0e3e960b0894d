import { jsonErrorBodySchema } from "@persona-reply/shared";
import { redactSecrets } from "../settings/mask-api-key.js";

/** Longest error message taken from a body; longer bodies are cut (the full body stays in `body`). */
const MAX_MESSAGE_LENGTH = 500;

/** What every {@link PersonaError} may carry besides its message. */
export interface PersonaErrorDetails {
  /** HTTP status of the response, or undefined when no response arrived. */
  status?: number | undefined;
  /** The response body as text (secrets masked); empty when there was none. */
  body?: string;
  /** Response headers, names in lower case. */
  headers?: Record<string, string>;
  /** The `x-request-id` of the request, to quote when asking for support. */
  requestId?: string | undefined;
  /** `error.type` of a JSON error body (e.g. `upstream_error`), when there was one. */
  type?: string | undefined;
  /** The underlying error, e.g. the network failure of a {@link ConnectionError}. */
  cause?: unknown;
}

/** A response as {@link PersonaError.fromResponse} reads it. */
export interface ErrorResponse {
  /** HTTP status, e.g. 401. */
  status: number;
  /** Response headers (a `Headers` object or a plain record). */
  headers: Headers | Record<string, string>;
  /** The body as text, unparsed. */
  body: string;
}

/** Options of {@link PersonaError.fromResponse}. */
export interface FromResponseOptions {
  /** Secrets (the API key) to mask wherever they appear in the body or message. */
  redact?: readonly string[];
  /** What was asked, e.g. `POST /api/v1/generate`, for the message of an empty body. */
  operation?: string;
}

function headerRecord(headers: Headers | Record<string, string>): Record<string, string> {
  const record: Record<string, string> = {};
  if (typeof headers.get === "function") {
    // A fetch `Headers` object (it lower-cases names itself).
    (headers as Headers).forEach((value, name) => {
      record[name] = value;
    });
  } else {
    for (const [name, value] of Object.entries(headers)) record[name.toLowerCase()] = value;
  }
  return record;
}

/**
 * Reads an error body the way docs/API.md §7 formats 1–2 require: the content type
 * decides. JSON bodies give `error.message` and `error.type` (the
 * `{ error: { type, message } }` shape of `@persona-reply/shared`, or any
 * object with a string `error.message` or `message`); anything else is plain
 * text and is the message itself.
 */
function describeBody(contentType: string, body: string): { message: string; type?: string } {
  const text = body.trim();
  if (/\bjson\b/iu.test(contentType)) {
    try {
      const data: unknown = JSON.parse(text);
      const parsed = jsonErrorBodySchema.safeParse(data);
      if (parsed.success)
        return { message: parsed.data.error.message, type: parsed.data.error.type };
      const loose = data as { error?: { message?: unknown } | string; message?: unknown };
      if (typeof loose.error === "object" && typeof loose.error?.message === "string") {
        return { message: loose.error.message };
      }
      if (typeof loose.error === "string") return { message: loose.error };
      if (typeof loose.message === "string") return { message: loose.message };
    } catch {
      // A body labelled JSON that does not parse is still worth showing as text.
    }
  }
  return { message: text };
}

function shorten(text: string): string {
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text;
}

/**
 * Reads `Retry-After` (RFC 9110 §10.2.3): delay seconds, or an HTTP date.
 *
 * @param value - the header's value
 * @param now - the current time in Unix milliseconds (for HTTP dates)
 * @returns seconds to wait (0 or more), or undefined when absent or unreadable
 *
 * @example
 * parseRetryAfter("120"); // 120
 * parseRetryAfter("Sat, 21 Nov 2026 10:00:30 GMT", Date.parse("2026-11-21T10:00:00Z")); // 30
 */
export function parseRetryAfter(
  value: string | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/u.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The root of every error this package throws: HTTP errors of the service
 * (one subclass per status), and {@link ConnectionError},
 * {@link TimeoutError}, {@link RequestAbortedError} and
 * {@link ConfigurationError}. Its message is the server's own message
 * (docs/API.md §7), never containing the API key.
 *
 * @example
 * try {
 *   await client.generate({ messages: [{ role: "user", content: "Hi" }] });
 * } catch (error) {
 *   if (error instanceof RateLimitError) console.log(`retry in ${error.retryAfter ?? "?"} s`);
 *   else if (error instanceof PersonaError) console.log(error.status, error.message, error.requestId);
 *   else throw error;
 * }
 */
export class PersonaError extends Error {
  override name = "PersonaError";
  /** HTTP status, or undefined when no response arrived (connection, timeout, configuration). */
  readonly status: number | undefined;
  /** The response body as text with secrets masked; empty when there was none. */
  readonly body: string;
  /** Response headers, names in lower case; empty when there was no response. */
  readonly headers: Record<string, string>;
  /** The request's `x-request-id`: quote it when asking for support. */
  readonly requestId: string | undefined;
  /** `error.type` of a JSON error body (e.g. `upstream_error`), when the body had one. */
  readonly type: string | undefined;

  constructor(message: string, details: PersonaErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.status = details.status;
    this.body = details.body ?? "";
    this.headers = details.headers ?? {};
    this.requestId = details.requestId;
    this.type = details.type;
  }

  /**
   * The one factory from an HTTP error response to its class: 400
   * {@link BadRequestError}, 401 {@link AuthenticationError}, 402
   * {@link PaymentRequiredError}, 403 {@link PermissionDeniedError}, 404
   * {@link NotFoundError}, 422 {@link UnprocessableEntityError}, 429
   * {@link RateLimitError}, 5xx {@link InternalServerError}, any other status
   * a plain {@link PersonaError}. The body is read by its content type
   * (docs/API.md §7 formats 1–2): plain text is the message; JSON gives
   * `error.message` and `error.type`.
   *
   * @example
   * const error = PersonaError.fromResponse({
   *   status: 401,
   *   headers: { "content-type": "text/plain" },
   *   body: "invalid API key",
   * });
   * error instanceof AuthenticationError; // true
   */
  static fromResponse(response: ErrorResponse, options: FromResponseOptions = {}): PersonaError {
    const headers = headerRecord(response.headers);
    const redact = options.redact ?? [];
    const body = redactSecrets(response.body, redact);
    const described = describeBody(headers["content-type"] ?? "", body);
    const message =
      described.message === ""
        ? `${options.operation ?? "the request"} failed with HTTP ${response.status} and an empty body`
        : shorten(described.message);
    const details: PersonaErrorDetails = {
      status: response.status,
      body,
      headers,
      requestId: headers["x-request-id"],
      type: described.type,
    };
    const status = response.status;
    if (status === 400) return new BadRequestError(message, details);
    if (status === 401) return new AuthenticationError(message, details);
    if (status === 402) return new PaymentRequiredError(message, details);
    if (status === 403) return new PermissionDeniedError(message, details);
    if (status === 404) return new NotFoundError(message, details);
    if (status === 422) return new UnprocessableEntityError(message, details);
    if (status === 429) return new RateLimitError(message, details);
    if (status >= 500) return new InternalServerError(message, details);
    return new PersonaError(message, details);
  }
}

/**
 * 400 Bad Request: malformed JSON, or an invalid /personify body (docs/API.md §7),
 * e.g. an empty `raw`.
 *
 * @example
 * await client.personify({ raw: "" }).catch((error) => error instanceof BadRequestError); // true
 */
export class BadRequestError extends PersonaError {
  override name = "BadRequestError";
}

/**
 * 401 Unauthorized: the API key is missing, mistyped, unknown or revoked
 * (docs/API.md §7). The message says which, never the key.
 *
 * @example
 * if (error instanceof AuthenticationError) console.error("check SERVICE_API_KEY");
 */
export class AuthenticationError extends PersonaError {
  override name = "AuthenticationError";
}

/**
 * 402 Payment Required: a payment challenge for self-serve personas when no
 * key was sent (docs/API.md §5.6). The body's shape is not shown in the spec; it is
 * kept whole in `body`.
 *
 * @example
 * if (error instanceof PaymentRequiredError) console.error(error.body);
 */
export class PaymentRequiredError extends PersonaError {
  override name = "PaymentRequiredError";
}

/**
 * 403 Forbidden: the key's account is not active, or the persona has no
 * /personify access (docs/API.md §7).
 *
 * @example
 * if (error instanceof PermissionDeniedError) console.error(error.message);
 */
export class PermissionDeniedError extends PersonaError {
  override name = "PermissionDeniedError";
}

/**
 * 404 Not Found: the persona ID is unknown or not available to this key
 * (docs/API.md §7).
 *
 * @example
 * if (error instanceof NotFoundError) console.error("check SERVICE_PERSONA_ID");
 */
export class NotFoundError extends PersonaError {
  override name = "NotFoundError";
}

/**
 * 422 Unprocessable Entity: an invalid /generate body, e.g. a history whose
 * last message is not a user message (docs/API.md §4.1, §7). The message names the
 * field, e.g. `messages[0].role: the last message must have role user, not assistant`.
 *
 * @example
 * if (error instanceof UnprocessableEntityError) console.error(error.message);
 */
export class UnprocessableEntityError extends PersonaError {
  override name = "UnprocessableEntityError";
}

/**
 * 429 Too Many Requests: a rate-limit window is used up, or the balance or
 * quota is exhausted (docs/API.md §7, §8). `retryAfter` is the server's
 * `Retry-After` in seconds, when it sent one.
 *
 * @example
 * if (error instanceof RateLimitError && error.retryAfter !== undefined) {
 *   await new Promise((resolve) => setTimeout(resolve, error.retryAfter * 1000));
 * }
 */
export class RateLimitError extends PersonaError {
  override name = "RateLimitError";
  /** Seconds to wait before retrying, from `Retry-After`; undefined when not sent. */
  readonly retryAfter: number | undefined;

  constructor(message: string, details: PersonaErrorDetails = {}) {
    super(message, details);
    this.retryAfter = parseRetryAfter(this.headers["retry-after"]);
  }
}

/**
 * 5xx: an unexpected server error (500), or the model provider failed (502)
 * or timed out (504). These bodies are JSON `{ error: { type, message } }`;
 * `type` holds the code, e.g. `upstream_error`.
 *
 * @example
 * if (error instanceof InternalServerError) console.error(error.status, error.type, error.requestId);
 */
export class InternalServerError extends PersonaError {
  override name = "InternalServerError";
}
