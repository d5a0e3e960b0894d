import { ProviderError, type ProviderFailureKind } from "./model-provider.js";

/** What the official SDKs' HTTP errors carry (openai-node and anthropic-sdk-typescript alike). */
interface ApiErrorLike extends Error {
  status: number | undefined;
  headers: Headers | undefined;
}

/**
 * The error classes of an official provider SDK. Both the `openai` and the
 * `@anthropic-ai/sdk` packages are generated from one template and throw the
 * same three shapes: an HTTP error with a status, a connection error, and a
 * connection timeout (a subclass of the connection error).
 */
export interface SdkErrorClasses {
  APIError: abstract new (...parameters: never[]) => ApiErrorLike;
  APIConnectionError: abstract new (...parameters: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...parameters: never[]) => Error;
}

/**
 * Statuses by which an upstream refuses the request itself (malformed, too
 * large, unprocessable): another upstream would refuse it too, so the route
 * does not fall back. Any other status says something about the upstream
 * (its key, its model list, its load, its health) and is worth a fallback.
 */
const REQUEST_FAULT_STATUSES = new Set([400, 413, 422]);

/** What a status means for the route (see {@link ProviderFailureKind}). */
export function failureKindOfStatus(status: number): ProviderFailureKind {
  return REQUEST_FAULT_STATUSES.has(status) ? "request" : "upstream";
}

/**
 * A {@link ProviderError} for an upstream's non-2xx status: the status, with
 * a numeric `Retry-After` of a 429 (only a number is repeated — the header's
 * text comes from the upstream), 529 named as overload.
 *
 * @param retryAfter - the answer's `Retry-After` header, if any
 */
export function providerErrorFromStatus(
  status: number,
  retryAfter: string | null,
  cause?: unknown,
): ProviderError {
  if (status === 429) {
    const hint = /^\d{1,6}$/u.test(retryAfter ?? "")
      ? `; it asks to retry after ${retryAfter} s`
      : "";
    return new ProviderError("upstream", `the upstream is rate limited (429${hint})`, { cause });
  }
  if (status === 529) {
    return new ProviderError("upstream", "the upstream is overloaded (529)", { cause });
  }
  return new ProviderError(failureKindOfStatus(status), `upstream answered ${status}`, { cause });
}

/**
 * Turns anything an official SDK threw into a {@link ProviderError} whose
 * message says what happened without repeating the upstream's own text (it
 * may echo the prompt or a key): `timeout` for a connection timeout; the
 * status for HTTP errors (with a numeric `Retry-After` of a 429); "could not
 * reach" for connection errors; "could not be read" for anything else (a
 * malformed body).
 */
export function providerErrorFromSdk(error: unknown, classes: SdkErrorClasses): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof classes.APIConnectionTimeoutError) {
    return new ProviderError("timeout", "the upstream timed out", { cause: error });
  }
  if (error instanceof classes.APIError && error.status !== undefined) {
    return providerErrorFromStatus(error.status, error.headers?.get("retry-after") ?? null, error);
  }
  if (error instanceof classes.APIConnectionError) {
    return new ProviderError("upstream", "could not reach the upstream", { cause: error });
  }
  return new ProviderError("upstream", "the upstream answer could not be read", { cause: error });
}
