import { type ErrorCode, ServiceError } from "./service-error.js";

/**
 * What body-parser (and raw-body under it) attaches to the errors it raises
 * while reading a request body: `type` names the failure, `limit` is the
 * byte limit of an over-size body; a decompression failure is Node's zlib
 * error (`code` like `Z_DATA_ERROR`, a numeric `errno`) with `status` 400.
 */
interface BodyParserError {
  type?: unknown;
  limit?: unknown;
  status?: unknown;
  code?: unknown;
  errno?: unknown;
}

/** How a request-body failure is answered: its code (status and format: ERROR_TABLE) and message. */
interface BodyRefusal {
  code: ErrorCode;
  message: string;
  /** Close the connection after the answer (once what is left of the body was read and thrown away, within bounds). */
  close?: boolean;
}

/** The type given here to a body that does not decompress under its Content-Encoding. */
const CORRUPT_ENCODING = "encoding.corrupt";

function tooLarge(limit: unknown): BodyRefusal {
  const bytes = typeof limit === "number" ? ` of ${limit} bytes` : "";
  return {
    code: "payload_too_large",
    message: `request body is larger than the limit${bytes}`,
    close: true,
  };
}

/**
 * The one table of request-parsing failures: every error a body
 * parser raises for something the client sent, by its `type`, mapped to a
 * 4xx. The API routes, the pages and the playground's fetch endpoints all
 * answer through it, each in its own format (error-handler.ts,
 * pages/page-errors.ts). Only the two types that mean a programming error
 * (a stream read twice) stay 500.
 */
export const REQUEST_BODY_ERRORS: Record<string, (error: BodyParserError) => BodyRefusal> = {
  "entity.parse.failed": () => ({
    code: "malformed_json",
    message: "malformed JSON in request body",
  }),
  "entity.verify.failed": () => ({
    code: "invalid_request",
    message: "the request body was refused",
  }),
  "entity.too.large": (error) => tooLarge(error.limit),
  "parameters.too.many": () => ({
    code: "payload_too_large",
    message: "the form has too many fields",
    close: true,
  }),
  "querystring.parse.rangeError": () => ({
    code: "invalid_request",
    message: "the form is nested too deeply",
  }),
  "encoding.unsupported": () => ({
    code: "unsupported_media_type",
    message: "unsupported Content-Encoding; send the body as identity, gzip, deflate or br",
  }),
  "charset.unsupported": () => ({
    code: "unsupported_media_type",
    message: "unsupported charset in Content-Type; send the body as UTF-8",
  }),
  [CORRUPT_ENCODING]: () => ({
    code: "invalid_request",
    message: "the request body does not decompress as its Content-Encoding says",
  }),
  "request.aborted": () => ({
    code: "invalid_request",
    message: "the request body was not received whole",
  }),
  "request.size.invalid": () => ({
    code: "invalid_request",
    message: "the request body's length does not match its Content-Length",
  }),
};

function typeOf(error: BodyParserError): string | undefined {
  if (typeof error.type === "string") return error.type;
  // body-parser passes zlib's errors on with status 400 and no type of its own.
  const fromZlib = typeof error.errno === "number" && typeof error.code === "string";
  if (fromZlib && error.status === 400) return CORRUPT_ENCODING;
  return undefined;
}

/**
 * The {@link ServiceError} a body parser's error is answered with, or
 * undefined when the error is not one of {@link REQUEST_BODY_ERRORS}
 * (a `ServiceError` thrown by route code, a bug).
 *
 * @example
 * const failure = requestBodyError(error) ?? error;
 */
export function requestBodyError(error: unknown): ServiceError | undefined {
  if (typeof error !== "object" || error === null || error instanceof ServiceError) {
    return undefined;
  }
  const type = typeOf(error as BodyParserError);
  const refusal = type === undefined ? undefined : REQUEST_BODY_ERRORS[type];
  if (refusal === undefined) return undefined;
  return refusalError(refusal(error as BodyParserError), error);
}

function refusalError({ code, message, close }: BodyRefusal, cause: unknown): ServiceError {
  return new ServiceError(code, message, {
    cause,
    ...(close === true ? { headers: { Connection: "close" } } : {}),
  });
}
