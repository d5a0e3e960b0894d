import {
  ConfigurationError,
  ConnectionError,
  RequestAbortedError,
  TimeoutError,
} from "../errors/client-errors.js";
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
} from "../errors/persona-error.js";
import { redactSecrets } from "../settings/mask-api-key.js";
import type { CliContext } from "./cli-context.js";
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { UsageError } from "./usage-error.js";

/** What kind of failure an error is, named as in `--json` error output. */
export type FailureKind =
  | "usage"
  | "configuration"
  | "authentication"
  | "permission"
  | "not_found"
  | "payment_required"
  | "invalid_request"
  | "rate_limited"
  | "server"
  | "connection"
  | "timeout"
  | "aborted"
  | "failure";

/** How the tool reports one error: its kind, exit code and a hint of what to do. */
interface Classified {
  kind: FailureKind;
  exitCode: ExitCode;
  hint?: string;
}

function classify(error: unknown): Classified {
  if (error instanceof UsageError) return { kind: "usage", exitCode: EXIT_CODES.usage };
  if (error instanceof ConfigurationError) {
    return { kind: "configuration", exitCode: EXIT_CODES.configuration };
  }
  if (error instanceof AuthenticationError) {
    return {
      kind: "authentication",
      exitCode: EXIT_CODES.authentication,
      hint: "give a valid key with: persona configure --api-key-stdin (or --api-key-env VAR)",
    };
  }
  if (error instanceof PaymentRequiredError) {
    return {
      kind: "payment_required",
      exitCode: EXIT_CODES.authentication,
      hint: "send an API key: persona configure --api-key-stdin",
    };
  }
  if (error instanceof PermissionDeniedError) {
    return {
      kind: "permission",
      exitCode: EXIT_CODES.authentication,
      hint: "the key's account or the persona is not allowed to do this; ask the operator",
    };
  }
  if (error instanceof NotFoundError) {
    return {
      kind: "not_found",
      exitCode: EXIT_CODES.authentication,
      hint: "check the persona ID: persona configure --persona-id <uuid>",
    };
  }
  if (error instanceof BadRequestError || error instanceof UnprocessableEntityError) {
    return { kind: "invalid_request", exitCode: EXIT_CODES.usage };
  }
  if (error instanceof RateLimitError) {
    const hint =
      error.retryAfter === undefined
        ? "rate limit or quota reached; try again later"
        : `rate limit reached; try again in ${Math.ceil(error.retryAfter)} s`;
    return { kind: "rate_limited", exitCode: EXIT_CODES.rateLimited, hint };
  }
  if (error instanceof TimeoutError) {
    return {
      kind: "timeout",
      exitCode: EXIT_CODES.connection,
      hint: "try again, or raise --timeout",
    };
  }
  if (error instanceof ConnectionError)
    return { kind: "connection", exitCode: EXIT_CODES.connection };
  if (error instanceof RequestAbortedError)
    return { kind: "aborted", exitCode: EXIT_CODES.failure };
  if (error instanceof InternalServerError) {
    return {
      kind: "server",
      exitCode: EXIT_CODES.server,
      hint: "the service failed; try again later and quote the request ID if it persists",
    };
  }
  if (error instanceof PersonaError && error.status !== undefined) {
    // A status outside the spec's table: 2xx with a wrong body, 405, 413, 415 …
    const kind = error.status >= 400 && error.status < 500 ? "invalid_request" : "server";
    return { kind, exitCode: kind === "server" ? EXIT_CODES.server : EXIT_CODES.usage };
  }
  return { kind: "failure", exitCode: EXIT_CODES.failure };
}

/**
 * Writes an error to standard error — as a sentence with the server's
 * message, status, request ID and a hint, or with `--json` as one JSON
 * object `{ error: { kind, message, status, type, requestId, retryAfter, exitCode } }`
 * — and returns the exit code. Every text is passed through secret masking.
 */
export function reportError(context: CliContext, error: unknown, json: boolean): ExitCode {
  const classified = classify(error);
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  const persona = error instanceof PersonaError ? error : undefined;
  const retryAfter = error instanceof RateLimitError ? error.retryAfter : undefined;
  if (json) {
    const body = {
      error: {
        kind: classified.kind,
        message,
        status: persona?.status ?? null,
        type: persona?.type ?? null,
        requestId: persona?.requestId ?? null,
        retryAfter: retryAfter ?? null,
        exitCode: classified.exitCode,
      },
    };
    context.stderr.write(`${JSON.stringify(body)}\n`);
    return classified.exitCode;
  }
  const lines = [`persona: ${message}`];
  const facts: string[] = [];
  if (persona?.status !== undefined) facts.push(`HTTP ${persona.status}`);
  if (persona?.type !== undefined) facts.push(persona.type);
  if (persona?.requestId !== undefined) facts.push(`request ID ${persona.requestId}`);
  if (facts.length > 0) lines.push(`  (${facts.join(", ")})`);
  if (classified.hint !== undefined) lines.push(`  hint: ${classified.hint}`);
  context.stderr.write(`${lines.join("\n")}\n`);
  return classified.exitCode;
}
