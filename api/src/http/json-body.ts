import type { RequestHandler } from "express";
import { type ErrorStyle, setErrorStyle } from "./error-style.js";
import { readJsonBody } from "./read-body.js";
import { ServiceError } from "./service-error.js";

/**
 * Requires `Content-Type: application/json` (docs/API.md §4 common rules; a charset
 * parameter is allowed) and answers 415 otherwise.
 */
export const requireJsonContentType: RequestHandler = (request, _response, next) => {
  const header = request.headers["content-type"] ?? "";
  const mediaType = header.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json") {
    next(
      new ServiceError(
        "unsupported_media_type",
        header === ""
          ? "Content-Type header is required and must be application/json"
          : "Content-Type must be application/json",
      ),
    );
    return;
  }
  next();
};

/**
 * Parses a JSON body up to `limit` bytes, whatever its Content-Type (checked
 * before by {@link requireJsonContentType}). Malformed JSON, a bad charset or
 * Content-Encoding and over-size bodies become 400, 415 and 413 through the
 * error handler (request-body-errors.ts); a declared size over the limit is
 * refused before the body is read.
 */
export function parseJsonBody(limit: number): RequestHandler {
  return readJsonBody(limit, { anyContentType: true, strict: false });
}

/** Says whether a parsed body is a JSON object (not an array, string, number or null). */
export function isJsonObject(body: unknown): body is Record<string, unknown> {
  return typeof body === "object" && body !== null && !Array.isArray(body);
}

/**
 * The steps every API endpoint runs before its handler (docs/API.md §4 common
 * rules): mark the endpoint's error style, require `application/json`
 * (415), and parse the body up to `limit` bytes (400 malformed, 413 too
 * large).
 *
 * @param style - `native` for /generate and /personify, `completions` for /completions
 */
export function jsonEndpoint(style: ErrorStyle, limit: number): RequestHandler[] {
  const markStyle: RequestHandler = (_request, response, next) => {
    setErrorStyle(response, style);
    next();
  };
  return [markStyle, requireJsonContentType, parseJsonBody(limit)];
}
