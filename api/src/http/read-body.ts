import { refuseOversizeBodies } from "@persona-reply/shared/node";
import express, { type Request, type RequestHandler, type Response } from "express";

// Bodies over the limit are refused before they are read (refuseOversizeBodies
// of @persona-reply/shared/node): a Content-Length over the limit at once, a
// chunked body the moment it passes it, with body-parser's own 413 error,
// which request-body-errors.ts answers with `Connection: close`. The
// server then reads and throws away the rest of the body within bounds
// (server.ts `unreadBodyLimits`), so a client that writes its whole body
// before it reads gets the 413 rather than a reset connection; a client that
// sent `Expect: 100-continue` gets it before it sends the body.

/**
 * Reads a JSON body of at most `limit` bytes into `request.body`, refusing
 * larger ones before they are read. Failures (malformed JSON, unsupported
 * charset or Content-Encoding, a body that does not decompress, 413) reach
 * the error middleware as body-parser errors, which request-body-errors.ts
 * maps to 4xx.
 *
 * @param limit - largest body in bytes
 * @param options - `anyContentType`: parse whatever the Content-Type (the
 *   API checks it itself first); `strict`: only objects and arrays (default true)
 */
export function readJsonBody(
  limit: number,
  options: { anyContentType?: boolean; strict?: boolean } = {},
): RequestHandler {
  const anyContentType = options.anyContentType === true;
  const parse = express.json({
    limit,
    strict: options.strict ?? true,
    type: anyContentType ? () => true : "application/json",
  });
  return refuseOversizeBodies<Request, Response>(
    parse,
    limit,
    (request) => anyContentType || Boolean(request.is("application/json")),
  );
}

/**
 * Reads an `application/x-www-form-urlencoded` body (flat fields, no
 * nesting) of at most `limit` bytes and `parameterLimit` fields into
 * `request.body`, refusing larger bodies before they are read; more fields
 * are a 413 through request-body-errors.ts.
 *
 * @param limit - largest body in bytes
 * @param parameterLimit - most fields
 */
export function readFormBody(limit: number, parameterLimit: number): RequestHandler {
  const parse = express.urlencoded({ extended: false, limit, parameterLimit });
  return refuseOversizeBodies<Request, Response>(parse, limit, (request) =>
    Boolean(request.is("application/x-www-form-urlencoded")),
  );
}
