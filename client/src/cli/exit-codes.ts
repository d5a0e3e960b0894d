/**
 * Exit codes of `persona` (documented in client/README.md and AGENTS.md), so
 * scripts and agents can tell what went wrong without parsing messages.
 */
export const EXIT_CODES = {
  /** Done. */
  ok: 0,
  /** Anything not listed below. */
  failure: 1,
  /** Bad command line or input: unknown flag, missing text, a key as an argument, 400 or 422. */
  usage: 2,
  /** The key or persona was refused: 401, 402, 403 or 404. */
  authentication: 3,
  /** Rate limit or quota: 429 (see `retryAfter`). */
  rateLimited: 4,
  /** The service failed: 5xx, or an answer that is not what the spec says. */
  server: 5,
  /** No answer: the service could not be reached, or did not answer in time. */
  connection: 6,
  /** Not configured: no key or persona, a bad base URL, an unreadable profiles file. */
  configuration: 78,
} as const;

/** One of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
