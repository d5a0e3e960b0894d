import { ConnectionError } from "../errors/client-errors.js";
import { PersonaError, parseRetryAfter } from "../errors/persona-error.js";

/** An HTTP status to retry, or `"5xx"` for every status from 500 to 599. */
export type RetryStatus = number | "5xx";

/**
 * Which failures a client retries and how long it waits: retries are
 * explicit. Connection errors are always retried; timeouts and aborts
 * never (a slow request may still be billed).
 */
export interface RetryPolicy {
  /** Retries after a retryable failure (so `maxRetries + 1` attempts at most); 0–10. */
  maxRetries: number;
  /** HTTP statuses retried. */
  statuses: readonly RetryStatus[];
  /** Wait before the first retry when the server gave no `Retry-After`, in ms; doubled each retry. */
  initialDelayMs: number;
  /** Longest backoff wait, in ms. */
  maxDelayMs: number;
  /**
   * Longest `Retry-After` (RFC 9110 §10.2.3) the client waits for, in ms; a
   * longer one is not waited for: the error is thrown at once.
   */
  maxRetryAfterMs: number;
  /** Share of the backoff wait taken off at random (0–1), so many clients do not retry in step. */
  jitter: number;
  /** Told before each wait: the failure and the wait in ms (for a log). */
  onRetry?: ((error: PersonaError, delayMs: number) => void) | undefined;
}

/** What a caller may change of a {@link RetryPolicy}; the rest keeps its default. */
export type RetryOptions = Partial<RetryPolicy>;

/**
 * Connection errors, 408, 429 and 5xx, twice; exponential backoff from
 * 0.5 s to 8 s less up to 25 % jitter; `Retry-After` honoured up to 60 s.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 2,
  statuses: Object.freeze([408, 429, "5xx"] as const),
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  jitter: 0.25,
});

/**
 * Whether an attempt's failure is worth another attempt under `policy`:
 * connection errors, and responses whose status the policy lists. Timeouts
 * and aborts are not retried; neither is any status it does not list.
 */
export function isRetryable(
  error: unknown,
  policy: Pick<RetryPolicy, "statuses"> = DEFAULT_RETRY_POLICY,
): boolean {
  if (error instanceof ConnectionError) return true;
  if (!(error instanceof PersonaError) || error.status === undefined) return false;
  const status = error.status;
  return policy.statuses.some((listed) =>
    listed === "5xx" ? status >= 500 && status <= 599 : listed === status,
  );
}

/**
 * How long to wait before retry number `retry` (0 for the first): the
 * server's `Retry-After` when it sent one, else exponential backoff less
 * up to `policy.jitter` of it.
 *
 * @returns milliseconds to wait, or undefined when `Retry-After` asks for
 * longer than the policy allows (the error is thrown instead)
 */
export function retryDelay(
  error: unknown,
  retry: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): number | undefined {
  // 429 and 503 may carry Retry-After (RFC 9110 §10.2.3); it beats our own guess.
  const retryAfter =
    error instanceof PersonaError ? parseRetryAfter(error.headers["retry-after"]) : undefined;
  if (retryAfter !== undefined && Number.isFinite(retryAfter)) {
    const milliseconds = Math.max(0, retryAfter * 1000);
    return milliseconds > policy.maxRetryAfterMs ? undefined : milliseconds;
  }
  const backoff = Math.min(policy.initialDelayMs * 2 ** retry, policy.maxDelayMs);
  return policy.jitter === 0 ? backoff : backoff * (1 - random() * policy.jitter);
}

/**
 * Waits `milliseconds`, or rejects with the signal's reason as soon as it aborts.
 */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
