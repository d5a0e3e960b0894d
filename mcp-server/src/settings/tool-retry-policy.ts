import type { RetryOptions } from "@persona-reply/client";

/**
 * How a tool call retries, as the client library's retry policy: connection
 * errors, 408 and 5xx, twice by default (`--max-retries`), after 250 ms then
 * doubling up to 8 s, and a `Retry-After` only up to 10 s. A 429 is never
 * retried here: the agent gets it back at once with the time to retry,
 * instead of a tool call that hangs for up to a minute. No jitter: one
 * agent's calls do not move in step with others'.
 */
export const TOOL_RETRY_POLICY: RetryOptions = {
  statuses: [408, "5xx"],
  initialDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 10_000,
  jitter: 0,
};
