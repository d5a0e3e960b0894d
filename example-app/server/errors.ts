import {
  ConfigurationError,
  ConnectionError,
  PersonaError,
  TimeoutError,
} from "@persona-reply/client";
import OpenAI from "openai";

/**
 * The `type` of an error body of the example app's routes (docs/API.md §4.6):
 * `validation` — the request is wrong, the message says what to fix (400);
 * `config` — the server lacks a setting, the message names the variable,
 * never its value (500); `provider` — the service answered an error (its 4xx
 * status, else 502, with its message), could not be reached (503) or did not
 * answer in time (504).
 */
export type ErrorType = "validation" | "config" | "provider";

/** Error body of every route: `{ error: { type, message } }` (docs/API.md §4.6). */
export interface ErrorBody {
  error: { type: ErrorType; message: string };
}

/**
 * A failure a route answers with its status and `{ error: { type, message } }`.
 *
 * @example
 * throw new ExampleAppError("validation", 400, "prompt: is required");
 */
export class ExampleAppError extends Error {
  override name = "ExampleAppError";
  constructor(
    /** The error body's `type`. */
    readonly type: ErrorType,
    /** HTTP status of the response. */
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A `validation` error (400): `message` says what to fix. */
export function validationError(message: string): ExampleAppError {
  return new ExampleAppError("validation", 400, message);
}

/**
 * What body-parser (under `express.json`) attaches to its errors: `type`
 * names the failure; a body that does not decompress under its
 * Content-Encoding is Node's zlib error (a `code` and a numeric `errno`).
 */
interface BodyReadFailure {
  type?: unknown;
  errno?: unknown;
}

/** Messages of the body-parser failures, by `type`. */
const BODY_READ_MESSAGES: Record<string, string> = {
  "entity.parse.failed": "the request body is not valid JSON",
  "charset.unsupported": "the request body's charset is not supported; send UTF-8 JSON",
  "encoding.unsupported":
    "the request body's Content-Encoding is not supported; send it as identity, gzip, deflate or br",
  "request.aborted": "the request body was not received whole",
  "request.size.invalid": "the request body's length does not match its Content-Length",
};

/**
 * The error for a request body the server could not read: a
 * `validation` error (400) saying why — malformed JSON, over `limit`, an
 * unsupported charset or Content-Encoding, a body that does not decompress,
 * a body cut short. The service is never called for such a request, so it is
 * never a `provider` error. body-parser's own programming errors (`stream.*`)
 * are returned as they are.
 *
 * @param error - what `express.json` passed to `next`
 * @param limit - the body limit, named in the message of an over-size body
 */
export function bodyReadError(error: unknown, limit: string): unknown {
  const failure = (typeof error === "object" && error !== null ? error : {}) as BodyReadFailure;
  const type = typeof failure.type === "string" ? failure.type : undefined;
  if (type?.startsWith("stream.") === true) return error;
  if (type === "entity.too.large") {
    return validationError(`the request body is larger than ${limit}`);
  }
  const message =
    (type === undefined ? undefined : BODY_READ_MESSAGES[type]) ??
    (typeof failure.errno === "number"
      ? "the request body does not decompress as its Content-Encoding says"
      : "the request body could not be read");
  return validationError(message);
}

/** A `config` error (500) naming the missing or unusable variable. */
export function configError(message: string): ExampleAppError {
  return new ExampleAppError("config", 500, message);
}

/** The upstream status passed through: a 4xx as it is (429 included), anything else 502. */
function providerStatus(status: number | undefined): number {
  return status !== undefined && status >= 400 && status < 500 ? status : 502;
}

/**
 * The service's own message out of an `openai` error: the `error.message`
 * of the completions error body (docs/API.md §7.3), or the text of a body that was
 * not JSON, without the `400 ` prefix the SDK adds.
 */
function openAiMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  if (typeof body?.message === "string" && body.message !== "") return body.message;
  const prefix = error.status === undefined ? "" : `${error.status} `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

/** Status of a `provider` error when the service could not be reached. */
export const UNREACHABLE_STATUS = 503;
/** Status of a `provider` error when the service did not answer in time. */
export const TIMEOUT_STATUS = 504;

const UNREACHABLE_MESSAGE =
  "could not reach the service; the example server's log names the address it tried";

/**
 * Turns anything a route threw into its status and error body. Errors of
 * the `openai` client and of `@persona-reply/client` become `provider`
 * errors with the service's status (4xx) or 502 and the service's message;
 * a service that cannot be reached is a 503 and one that does not answer in
 * time a 504, each saying so without the service's address (the browser
 * has no use for an internal URL; the server's log has it); anything else
 * is a 502 `provider` error with a generic message (the detail goes to the
 * log).
 *
 * @param error - what was thrown
 */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  const answer = (type: ErrorType, status: number, message: string) => ({
    status,
    body: { error: { type, message } },
  });
  if (error instanceof ExampleAppError) return answer(error.type, error.status, error.message);
  if (error instanceof OpenAI.APIConnectionTimeoutError || error instanceof TimeoutError) {
    return answer("provider", TIMEOUT_STATUS, "the service did not answer in time");
  }
  if (error instanceof OpenAI.APIConnectionError || error instanceof ConnectionError) {
    return answer("provider", UNREACHABLE_STATUS, UNREACHABLE_MESSAGE);
  }
  if (error instanceof OpenAI.APIError) {
    return answer("provider", providerStatus(error.status), openAiMessage(error));
  }
  if (error instanceof ConfigurationError) return answer("config", 500, error.message);
  if (error instanceof PersonaError) {
    return answer("provider", providerStatus(error.status), error.message);
  }
  return answer("provider", 502, "the call to the service failed unexpectedly");
}
