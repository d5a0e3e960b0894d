import type { IncomingMessage, ServerResponse } from "node:http";

/** A connect-style middleware, as express and body-parser have them. */
export type BodyMiddleware<
  Request extends IncomingMessage = IncomingMessage,
  Response extends ServerResponse = ServerResponse,
> = (request: Request, response: Response, next: (error?: unknown) => void) => void;

/**
 * The error body-parser (raw-body under it) gives a body over its limit:
 * status 413, `type` `entity.too.large`, the `limit`, and the length
 * declared or counted so far. Each server maps it to its own answer.
 */
export interface BodyTooLargeError extends Error {
  status: 413;
  statusCode: 413;
  type: "entity.too.large";
  limit: number;
  /** Bytes declared (Content-Length) or received so far (a chunked body). */
  length: number;
  expose: true;
}

function bodyTooLarge(limit: number, length: number): BodyTooLargeError {
  return Object.assign(new Error("request entity too large"), {
    status: 413 as const,
    statusCode: 413 as const,
    type: "entity.too.large" as const,
    limit,
    length,
    expose: true as const,
  });
}

/** Whether a request says it has a body (RFC 9112 §6.3): a Content-Length or a Transfer-Encoding. */
function hasBody(request: IncomingMessage): boolean {
  return (
    request.headers["transfer-encoding"] !== undefined ||
    request.headers["content-length"] !== undefined
  );
}

/**
 * Wraps a body-parser middleware (`express.json`, `express.urlencoded`) so
 * that a body over `limit` is refused before it is read: a `Content-Length`
 * over the limit at once, and a chunked body the moment the bytes counted
 * on the wire pass it. body-parser alone first reads the whole declared
 * body and throws it away (and, to a client that sent `Expect:
 * 100-continue`, has `100 Continue` sent for it). The refusal is
 * body-parser's own error ({@link BodyTooLargeError}), passed to `next` as
 * body-parser would, so each server answers it in its own format. With
 * {@link discardUnreadBodies} on the server, what is left of the body is
 * then read and thrown away within bounds, and a client waiting for `100
 * Continue` is refused before it sends the body. Every other failure is
 * the parser's own; body-parser still applies the limit to the decompressed
 * body too.
 *
 * @param parse - a body-parser middleware with the same `limit`
 * @param limit - largest body accepted, in bytes
 * @param parses - whether `parse` reads this request's body (its content-type check); default: always
 * @example
 * app.use(refuseOversizeBodies(express.json({ limit }), limit));
 */
export function refuseOversizeBodies<
  Request extends IncomingMessage,
  Response extends ServerResponse,
>(
  parse: BodyMiddleware<Request, Response>,
  limit: number,
  parses: (request: Request) => boolean = () => true,
): BodyMiddleware<Request, Response> {
  return (request, response, next) => {
    if (!hasBody(request) || !parses(request)) {
      parse(request, response, next);
      return;
    }
    const declared = request.headers["content-length"];
    if (declared !== undefined) {
      // Node has checked that it is one decimal number.
      if (Number(declared) > limit) next(bodyTooLarge(limit, Number(declared)));
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
      if (received > limit) settle(bodyTooLarge(limit, received));
    };
    request.on("data", count);
    parse(request, response, settle);
  };
}
