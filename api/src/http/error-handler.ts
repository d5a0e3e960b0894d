import type { CompletionErrorBody, JsonErrorBody } from "@persona-reply/shared";
import type { ErrorRequestHandler, Response } from "express";
import type { Logger } from "../logging/logger.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import { errorStyleOf } from "./error-style.js";
import { requestBodyError } from "./request-body-errors.js";
import { ERROR_TABLE, LOGGED_WHERE_THEY_HAPPEN, ServiceError } from "./service-error.js";

/**
 * A storage failure as the client sees it: 503 with `Retry-After`, its
 * kind in words (never the path or the driver's message, which are logged).
 */
export function storageUnavailable(error: StorageUnavailableError): ServiceError {
  return new ServiceError(
    "storage_unavailable",
    `service temporarily unavailable: ${error.message}; retry after ${error.retryAfterSeconds} seconds`,
    { headers: { "Retry-After": String(error.retryAfterSeconds) }, cause: error },
  );
}

/** Writes a {@link ServiceError} in the format of the endpoint's error style (docs/API.md §7). */
export function writeError(response: Response, error: ServiceError): void {
  const entry = ERROR_TABLE[error.code];
  // Read by the metrics middleware (rate-limit and balance refusals).
  response.locals.errorCode = error.code;
  response.status(entry.status);
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  const style = errorStyleOf(response);
  if (error.body !== undefined) {
    response.json(error.body);
  } else if (style === "completions") {
    const body: CompletionErrorBody = {
      error: { message: error.message, type: entry.completionType, param: error.param, code: null },
    };
    response.json(body);
  } else if (style === "native" && entry.nativeFormat === "text") {
    response.type("text/plain; charset=utf-8").send(error.message);
  } else {
    const body: JsonErrorBody = { error: { type: error.code, message: error.message } };
    response.json(body);
  }
}

/**
 * The one error middleware: turns thrown errors into responses. A body
 * parser's error becomes its 4xx through the one table of request-parsing
 * failures (request-body-errors.ts); anything that is not a
 * {@link ServiceError} or one of those is logged and answered with a 500 in
 * the endpoint's format, never with a stack trace.
 */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error, request, response, _next) => {
    const serviceError =
      error instanceof ServiceError
        ? error
        : error instanceof StorageUnavailableError
          ? storageUnavailable(error)
          : (requestBodyError(error) ??
            new ServiceError("internal_error", "internal server error", { cause: error }));
    // Storage failures and unservable routes are logged where they happen, not per request.
    if (serviceError.status >= 500 && !LOGGED_WHERE_THEY_HAPPEN.has(serviceError.code)) {
      logger.error(
        { err: serviceError.cause ?? serviceError, code: serviceError.code, path: request.path },
        "request failed",
      );
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    writeError(response, serviceError);
  };
}
