import { PersonaError, type PersonaErrorDetails } from "./persona-error.js";

/**
 * No response arrived: the connection was refused or reset, the name did not
 * resolve, or the network failed. `cause` holds the underlying error.
 * Retried (with backoff) up to `maxRetries` times before it is thrown.
 *
 * @example
 * if (error instanceof ConnectionError) console.error(`is the service up? ${error.message}`);
 */
export class ConnectionError extends PersonaError {
  override name = "ConnectionError";
}

/**
 * No whole response arrived within the timeout (`timeoutMs`, per attempt).
 * Not retried: a slow answer may still be billed, so the caller decides.
 *
 * @example
 * if (error instanceof TimeoutError) console.error("the service took too long; try again later");
 */
export class TimeoutError extends PersonaError {
  override name = "TimeoutError";
  /** The timeout that ran out, in milliseconds. */
  readonly timeoutMs: number;

  constructor(message: string, timeoutMs: number, details: PersonaErrorDetails = {}) {
    super(message, details);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The caller's `AbortSignal` aborted the request (or the wait before a
 * retry). Never retried. `cause` holds the signal's reason.
 *
 * @example
 * const controller = new AbortController();
 * const reply = client.generate(input, { signal: controller.signal });
 * controller.abort();
 * await reply.catch((error) => error instanceof RequestAbortedError); // true
 */
export class RequestAbortedError extends PersonaError {
  override name = "RequestAbortedError";
}

/**
 * The client is not configured well enough to send a request: no API key, no
 * persona ID, or an unusable base URL (for example one ending in `/api/v1`,
 * docs/API.md §4.4). Thrown before any request is made. The message names the
 * option and the environment variable that provide the value, never a key.
 *
 * @example
 * try {
 *   new PersonaClient({ baseUrl: "https://example.com/api/v1" });
 * } catch (error) {
 *   error instanceof ConfigurationError; // true
 * }
 */
export class ConfigurationError extends PersonaError {
  override name = "ConfigurationError";
}
