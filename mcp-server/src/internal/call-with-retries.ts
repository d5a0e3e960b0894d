import {
  ConnectionError,
  PersonaError,
  parseRetryAfter,
  RequestAbortedError,
} from "@persona-reply/client";

/** Options of {@link callWithRetries}. */
export interface RetryOptions {
  /** Retries after a connection error, 408 or 5xx; default 2. */
  maxRetries?: number;
  /** The tool call's cancellation; stops the wait before a retry. */
  signal?: AbortSignal | undefined;
  /** First backoff wait in milliseconds, doubled each retry; default 250. */
  initialDelayMs?: number;
  /** Told before each retry: the failure and the wait in milliseconds (for the log). */
  onRetry?: (error: unknown, delayMs: number) => void;
}

/** Longest `Retry-After` honoured before a retry; a longer one fails the call at once. */
const MAX_RETRY_AFTER_MS = 10_000;

/**
 * Whether a failure is transient enough to try again inside one tool call:
 * no connection, 408, or a 5xx. A 429 is never retried here: the agent gets
 * it back at once with the time to retry, instead of a tool call that hangs
 * for up to a minute (the client library's own retries are turned off for
 * that reason). Other 4xx would fail the same way again.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  if (!(error instanceof PersonaError) || error.status === undefined) return false;
  return error.status === 408 || error.status >= 500;
}

function wait(milliseconds: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new RequestAbortedError("the tool call was cancelled", { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RequestAbortedError("the tool call was cancelled", { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `operation`, trying again after a transient failure (see
 * {@link isTransient}) with exponential backoff, or the server's
 * `Retry-After` when it is at most 10 s.
 *
 * @param operation - one attempt; receives the tool call's signal
 * @returns what the first successful attempt returned
 * @throws the last attempt's error, or `RequestAbortedError` when the call is cancelled while waiting
 *
 * @example
 * const reply = await callWithRetries((signal) => client.generate(input, { signal }), { signal });
 */
export async function callWithRetries<T>(
  operation: (signal: AbortSignal | undefined) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const maxRetries = options.maxRetries ?? 2;
  const initialDelayMs = options.initialDelayMs ?? 250;
  for (let retry = 0; ; retry += 1) {
    try {
      return await operation(options.signal);
    } catch (error) {
      if (retry >= maxRetries || !isTransient(error)) throw error;
      const retryAfter =
        error instanceof PersonaError ? parseRetryAfter(error.headers["retry-after"]) : undefined;
      const delay =
        retryAfter === undefined ? initialDelayMs * 2 ** retry : Math.max(0, retryAfter * 1000);
      if (delay > MAX_RETRY_AFTER_MS) throw error;
      options.onRetry?.(error, delay);
      await wait(delay, options.signal);
    }
  }
}
