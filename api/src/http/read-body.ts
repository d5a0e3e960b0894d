import express, { type Request, type RequestHandler } from "express";
import { bodyTooLargeError } from "./request-body-errors.js";

/** Whether a request says it has a body (RFC 9112 §6.3): a Content-Length or a Transfer-Encoding. */
function hasBody(request: Request): boolean {
  return (
    request.headers["transfer-encoding"] !== undefined ||
    request.headers["content-length"] !== undefined
  );
}

/**
 * Wraps a body-parser middleware so that a body over `limit` is refused
 * before it is read (issue 13): a `Content-Length` over the limit is
 * answered 413 at once, and a chunked body is counted as it arrives and
 * refused the moment it passes the limit, where body-parser alone would
 * first read the whole declared body and throw it away. The answer goes out
 * at once with `Connection: close`; the server then reads and throws away
 * the rest of the body, within bounds, before it closes (server.ts
 * `unreadBodyLimits`), so a client that writes its whole body before it
 * reads gets the 413 rather than a reset connection. A client that sent
 * `Expect: 100-continue` gets the 413 before it sends the body: the `100
 * Continue` goes out only when `parse` starts reading. The limit counts the
 * bytes on the wire; body-parser still applies it to the decompressed body
 * too. Every other failure is the parser's own error, mapped by
 * request-body-errors.ts.
 *
 * @param parse - an `express.json`/`express.urlencoded` middleware with the same `limit`
 * @param limit - largest body accepted, in bytes
 * @param parses - whether `parse` reads this request's body (its content-type check)
 */
function refuseOversizeBodies(
  parse: RequestHandler,
  limit: number,
  parses: (request: Request) => boolean,
): RequestHandler {
  return (request, response, next) => {
    if (!hasBody(request) || !parses(request)) {
      parse(request, response, next);
      return;
    }
    const declared = request.headers["content-length"];
    if (declared !== undefined) {
      // Node has checked that it is one decimal number.
      if (Number(declared) > limit) next(bodyTooLargeError(limit));
      else parse(request, response, next);
      return;
    }
    let received = 0;
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      request.off("data", count);
      next(error);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) settle(bodyTooLargeError(limit));
    };
    request.on("data", count);
    parse(request, response, settle);
  };
}

/**
 * Reads a JSON body of at most `limit` bytes into `request.body`, refusing
 * larger ones before they are read (see {@link refuseOversizeBodies}).
 * Failures (malformed JSON, unsupported charset or Content-Encoding, a body
 * that does not decompress, 413) reach the error middleware as body-parser
 * errors, which request-body-errors.ts maps to 4xx.
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
  return refuseOversizeBodies(
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
  return refuseOversizeBodies(parse, limit, (request) =>
    Boolean(request.is("application/x-www-form-urlencoded")),
  );
}
