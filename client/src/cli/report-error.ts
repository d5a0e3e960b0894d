import {
  describeError,
  type ErrorDescription,
  type ErrorKind,
  retryAfterAction,
} from "../errors/describe-error.js";
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

/** The command's words for a kind, where they differ from the client's description. */
const CLI_HINTS: Partial<Record<ErrorKind, string>> = {
  authentication: "give a valid key with: persona configure --api-key-stdin (or --api-key-env VAR)",
  payment_required: "send an API key: persona configure --api-key-stdin",
  not_found: "check the persona ID: persona configure --persona-id <uuid>",
  timeout: "try again, or raise --timeout",
};

/** Each kind of the client's description as the command reports it, and whether with a hint. */
const CLI_REPORT: Record<ErrorKind, { kind: FailureKind; exitCode: ExitCode; hinted: boolean }> = {
  configuration: { kind: "configuration", exitCode: EXIT_CODES.configuration, hinted: false },
  authentication: { kind: "authentication", exitCode: EXIT_CODES.authentication, hinted: true },
  payment_required: {
    kind: "payment_required",
    exitCode: EXIT_CODES.authentication,
    hinted: true,
  },
  permission: { kind: "permission", exitCode: EXIT_CODES.authentication, hinted: true },
  not_found: { kind: "not_found", exitCode: EXIT_CODES.authentication, hinted: true },
  invalid_request: { kind: "invalid_request", exitCode: EXIT_CODES.usage, hinted: false },
  rate_limited: { kind: "rate_limited", exitCode: EXIT_CODES.rateLimited, hinted: true },
  balance_exhausted: { kind: "rate_limited", exitCode: EXIT_CODES.rateLimited, hinted: true },
  server: { kind: "server", exitCode: EXIT_CODES.server, hinted: true },
  timeout: { kind: "timeout", exitCode: EXIT_CODES.connection, hinted: true },
  connection: { kind: "connection", exitCode: EXIT_CODES.connection, hinted: false },
  aborted: { kind: "aborted", exitCode: EXIT_CODES.failure, hinted: false },
  // A status outside the spec's table: 2xx with a wrong body, 405, 413, 415 … (set below).
  unexpected_status: { kind: "server", exitCode: EXIT_CODES.server, hinted: false },
  failure: { kind: "failure", exitCode: EXIT_CODES.failure, hinted: false },
  unexpected: { kind: "failure", exitCode: EXIT_CODES.failure, hinted: false },
};

/** The hint for a described error: the command's words, else the client's action. */
function hintOf(description: ErrorDescription): string {
  if (description.kind === "balance_exhausted") {
    // Reported like any 429: with the time to retry when the service gave one.
    return retryAfterAction(description.retryAfter);
  }
  return CLI_HINTS[description.kind] ?? description.action;
}

function classify(error: unknown, description: ErrorDescription): Classified {
  if (error instanceof UsageError) return { kind: "usage", exitCode: EXIT_CODES.usage };
  const report = CLI_REPORT[description.kind];
  const status = description.personaError?.status;
  if (description.kind === "unexpected_status" && status !== undefined) {
    const kind = status >= 400 && status < 500 ? "invalid_request" : "server";
    return { kind, exitCode: kind === "server" ? EXIT_CODES.server : EXIT_CODES.usage };
  }
  return report.hinted
    ? { kind: report.kind, exitCode: report.exitCode, hint: hintOf(description) }
    : { kind: report.kind, exitCode: report.exitCode };
}

/**
 * Writes an error to standard error — as a sentence with the server's
 * message, status, request ID and a hint, or with `--json` as one JSON
 * object `{ error: { kind, message, status, type, requestId, retryAfter, exitCode } }`
 * — and returns the exit code. Every text is passed through secret masking.
 */
export function reportError(context: CliContext, error: unknown, json: boolean): ExitCode {
  const description = describeError(error);
  const classified = classify(error, description);
  const message = redactSecrets(error instanceof Error ? error.message : String(error));
  const persona = description.personaError;
  const retryAfter = description.retryAfter;
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
