import type { ErrorRequestHandler } from "express";
import { storageUnavailable } from "../http/error-handler.js";
import { requestBodyError } from "../http/request-body-errors.js";
import { LOGGED_WHERE_THEY_HAPPEN, ServiceError } from "../http/service-error.js";
import type { Logger } from "../logging/logger.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import { html } from "./html.js";
import { sendPage } from "./layout.js";
import { pageLocals } from "./web-support.js";

/** An error a page answers with: its status and a message safe to show. */
export class PageError extends Error {
  override readonly name = "PageError";

  /**
   * @param status - HTTP status of the error page
   * @param message - shown to the person; must not contain secrets
   */
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function describe(error: unknown): { status: number; message: string; code: string } {
  if (error instanceof PageError) {
    return { status: error.status, message: error.message, code: "page_error" };
  }
  if (error instanceof ServiceError) {
    return { status: error.status, message: error.message, code: error.code };
  }
  const record = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
  };
  if (record.code === "EBADCSRFTOKEN") {
    return {
      status: 403,
      code: "invalid_csrf_token",
      message:
        "This form has expired or was not sent from this site. Go back, reload the page and try again.",
    };
  }
  return { status: 500, code: "internal_error", message: "Something went wrong on our side." };
}

/**
 * Error middleware of the page routers: an HTML error page, or
 * `{ error: { type, message } }` for the playground's fetch endpoints.
 * Unexpected errors are logged and answered with a 500 that reveals nothing.
 */
export function createPageErrorHandler(logger: Logger): ErrorRequestHandler {
  return (thrown, request, response, _next) => {
    // A body parser's error becomes its 4xx, as on the API (one table for both).
    const error: unknown =
      thrown instanceof StorageUnavailableError
        ? storageUnavailable(thrown)
        : (requestBodyError(thrown) ?? thrown);
    const { status, message, code } = describe(error);
    if (status >= 500 && !LOGGED_WHERE_THEY_HAPPEN.has(code))
      logger.error({ err: error, path: request.path }, "page request failed");
    if (response.headersSent) {
      response.end();
      return;
    }
    if (error instanceof PageError || error instanceof ServiceError) {
      for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
    }
    const locals = pageLocals(response);
    if (locals.jsonErrors === true) {
      response.status(status).json({ error: { type: code, message } });
      return;
    }
    const title =
      status === 403 ? "Not allowed" : status >= 500 ? "Server error" : "Request refused";
    sendPage(request, response, {
      title,
      status,
      body: html`<p class="notice error">${message}</p><p><a href="/playground">Back to the playground</a></p>`,
    });
  };
}
