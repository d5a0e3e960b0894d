import {
  ConfigurationError,
  ConnectionError,
  RequestAbortedError,
  TimeoutError,
} from "./client-errors.js";
import {
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  PersonaError,
  RateLimitError,
  UnprocessableEntityError,
} from "./persona-error.js";

/**
 * What kind of failure an error is, one per error class of this package
 * (docs/API.md §7): the status-named classes, then the failures without a response.
 * `unexpected_status` is a response whose status the spec's table does not
 * name (a 2xx with a wrong body, 405, 413 …), `failure` any other
 * {@link PersonaError}, `unexpected` an error this package did not throw.
 */
export type ErrorKind =
  | "configuration"
  | "authentication"
  | "payment_required"
  | "permission"
  | "not_found"
  | "invalid_request"
  | "rate_limited"
  | "balance_exhausted"
  | "server"
  | "timeout"
  | "connection"
  | "aborted"
  | "unexpected_status"
  | "failure"
  | "unexpected";

/**
 * One error described: its kind, what happened and what to do, in words
 * that hold for any caller. A surface (the `persona` command, the MCP
 * server) formats this, adding its own commands where they help.
 */
export interface ErrorDescription {
  kind: ErrorKind;
  /** What happened, as a lower-case clause: "the service refused the API key". */
  happened: string;
  /** What to do, as a lower-case clause; empty when the message says it all. */
  action: string;
  /** Whether trying the same call again later can succeed. */
  retryable: boolean;
  /** The error as this package's error, when it is one (status, type, request ID). */
  personaError: PersonaError | undefined;
  /** Seconds until a retry is allowed, from a 429's `Retry-After`. */
  retryAfter: number | undefined;
}

type Words = Pick<ErrorDescription, "happened" | "action" | "retryable">;

/** The words of each kind; `rate_limited` is worded with its `Retry-After` by {@link describeError}. */
const WORDS: Record<Exclude<ErrorKind, "rate_limited">, Words> = {
  configuration: {
    happened: "the client is not configured well enough to send a request",
    action: "set the value the message names, then try again",
    retryable: false,
  },
  authentication: {
    happened: "the service refused the API key",
    action: "give a valid key",
    retryable: false,
  },
  payment_required: {
    happened: "the service asked for payment",
    action: "send an API key",
    retryable: false,
  },
  permission: {
    happened: "the service refused this call",
    action: "the key's account or the persona is not allowed to do this; ask the operator",
    retryable: false,
  },
  not_found: {
    happened: "the service does not know this persona",
    action: "check the persona ID",
    retryable: false,
  },
  invalid_request: {
    happened: "the service rejected the request",
    action: "correct what the message names",
    retryable: false,
  },
  balance_exhausted: {
    happened: "the account's balance is used up",
    action: "retrying will not help until the operator tops the account up",
    retryable: false,
  },
  server: {
    happened: "the service failed",
    action: "the service failed; try again later and quote the request ID if it persists",
    retryable: true,
  },
  timeout: {
    happened: "the service did not answer in time",
    action: "try again",
    retryable: true,
  },
  connection: {
    happened: "the service could not be reached",
    action: "check that the service is up and that the base URL is its origin",
    retryable: true,
  },
  aborted: {
    happened: "the call was cancelled before the service answered",
    action: "",
    retryable: false,
  },
  unexpected_status: {
    happened: "the service answered with a status outside the API's table",
    action: "",
    retryable: false,
  },
  failure: { happened: "the call failed", action: "", retryable: false },
  unexpected: { happened: "something unexpected failed", action: "", retryable: false },
};

/** The kind of `error`: the one ladder of this package's error classes. */
function kindOf(error: unknown): ErrorKind {
  if (!(error instanceof PersonaError)) return "unexpected";
  if (error instanceof ConfigurationError) return "configuration";
  if (error instanceof AuthenticationError) return "authentication";
  if (error instanceof PaymentRequiredError) return "payment_required";
  if (error instanceof PermissionDeniedError) return "permission";
  if (error instanceof NotFoundError) return "not_found";
  if (error instanceof BadRequestError || error instanceof UnprocessableEntityError) {
    return "invalid_request";
  }
  if (error instanceof RateLimitError) {
    return error.type === "insufficient_balance" ? "balance_exhausted" : "rate_limited";
  }
  if (error instanceof InternalServerError) return "server";
  if (error instanceof TimeoutError) return "timeout";
  if (error instanceof ConnectionError) return "connection";
  if (error instanceof RequestAbortedError) return "aborted";
  return error.status === undefined ? "failure" : "unexpected_status";
}

/**
 * What to do after a 429 with `Retry-After` of `retryAfter` seconds (or none).
 *
 * @example
 * retryAfterAction(41.2) // "rate limit reached; try again in 42 s"
 */
export function retryAfterAction(retryAfter: number | undefined): string {
  return retryAfter === undefined
    ? "rate limit or quota reached; try again later"
    : `rate limit reached; try again in ${Math.ceil(retryAfter)} s`;
}

/**
 * Describes any error a call of this package can throw (docs/API.md §7): its
 * {@link ErrorKind}, what happened and what to do. Never throws; an error
 * this package did not throw is `unexpected`.
 *
 * @example
 * try {
 *   await client.generate(input);
 * } catch (error) {
 *   const { happened, action } = describeError(error);
 *   console.error(`${happened}${action === "" ? "" : `: ${action}`}`);
 * }
 */
export function describeError(error: unknown): ErrorDescription {
  const kind = kindOf(error);
  const personaError = error instanceof PersonaError ? error : undefined;
  const retryAfter = error instanceof RateLimitError ? error.retryAfter : undefined;
  const words: Words =
    kind === "rate_limited"
      ? {
          happened: "the rate limit was reached",
          action: retryAfterAction(retryAfter),
          retryable: true,
        }
      : WORDS[kind];
  return { kind, ...words, personaError, retryAfter };
}
