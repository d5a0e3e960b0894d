import { ConnectionError } from "../errors/client-errors.js";
import { PersonaError, parseRetryAfter } from "../errors/persona-error.js";

/** How retries wait, in milliseconds. */
export interface RetryPolicy {
  /** Wait before the first retry when the server gave no `Retry-After`. */
  initialDelayMs: number;
  /** Longest backoff wait. */
  maxDelayMs: number;
  /** Longest `Retry-After` the client waits for; longer ones are thrown at once. */
  maxRetryAfterMs: number;
}

/** Exponential backoff from 0.5 s to 8 s; `Retry-After` honoured up to 60 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Whether an attempt's failure is worth another attempt: connection errors,
 * 408, 429 and 5xx (STYLE.md "Retries are explicit"). Timeouts and aborts
 * are not retried; neither is any other 4xx, which would fail the same way.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  if (!(error instanceof PersonaError) || error.status === undefined) return false;
  return error.status === 408 || error.status === 429 || error.status >= 500;
}

/**
 * How long to wait before retry number `retry` (0 for the first): the
 * server's `Retry-After` when it sent one, else exponential backoff with up
 * to 25 % jitter, so many clients do not retry in step.
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
  return backoff * (1 - random() * 0.25);
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
