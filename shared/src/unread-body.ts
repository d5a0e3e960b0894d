import type { IncomingMessage, Server, ServerResponse } from "node:http";

/** How much of a request body a server reads and throws away after answering before it. */
export interface UnreadBodyLimits {
  /** Most bytes read and thrown away after the answer; past them the connection is closed. */
  maxBytes: number;
  /** Most milliseconds spent doing so, from the answer. */
  maxMs: number;
  /** Most milliseconds without a byte of the body: a client that sends nothing is not sending it. */
  idleMs: number;
}

/** `ServerResponse.end` in any of its forms: `(callback?)`, `(chunk, callback?)`, `(chunk, encoding, callback?)`. */
type End = (this: ServerResponse, ...args: [unknown?, unknown?, unknown?]) => ServerResponse;

/** Requests whose client waits for `100 Continue` before sending its body, not sent yet. */
const awaitingContinue = new WeakSet<IncomingMessage>();

/** Whether a request says it has a body (RFC 9112 §6.3): a non-zero Content-Length, or a Transfer-Encoding. */
function declaresBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return (
    request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
  );
}

/**
 * Reads the rest of a request body and throws it away, within `limits`.
 * Resolves true once the body has been read whole, false when a limit was
 * reached or the client went away first.
 */
function discardRest(request: IncomingMessage, limits: UnreadBodyLimits): Promise<boolean> {
  return new Promise((resolve) => {
    let received = 0;
    const finish = (whole: boolean) => {
      clearTimeout(overall);
      clearTimeout(idle);
      request.off("data", count);
      request.off("end", ended);
      request.off("close", closed);
      resolve(whole);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.maxBytes) finish(false);
      else idle.refresh();
    };
    const ended = () => finish(true);
    const closed = () => finish(request.complete);
    const overall = setTimeout(() => finish(false), limits.maxMs);
    const idle = setTimeout(() => finish(false), limits.idleMs);
    request.on("data", count);
    request.once("end", ended);
    request.once("close", closed);
    // A body parser that gave up on the body left the stream paused.
    request.resume();
  });
}

/**
 * Defers the end of a response to a request whose body is still unread:
 * the answer is written at once, and the response is finished once the
 * rest of the body has been read and thrown away; past `limits`, the
 * connection is closed instead.
 */
function finishAfterBody(
  request: IncomingMessage,
  response: ServerResponse,
  limits: UnreadBodyLimits,
): void {
  const original = response.end;
  const end = original as unknown as End;
  const deferredEnd: End = function (this: ServerResponse, ...args) {
    response.end = original;
    // Read whole (what is left is in memory, and Node drops it), gone, or never sent:
    // a client still waiting for 100 Continue sends no body after a final answer.
    if (request.complete || request.destroyed || awaitingContinue.has(request)) {
      return end.apply(this, args);
    }
    const [first, second, third] = args;
    const callback = [first, second, third].find((argument) => typeof argument === "function") as
      | (() => void)
      | undefined;
    const chunk = typeof first === "function" ? undefined : (first as string | Buffer | undefined);
    const encoding = typeof second === "string" ? (second as BufferEncoding) : "utf8";
    if (chunk !== undefined && chunk !== null) {
      // Written whole now, the answer keeps the length `end` would have given it.
      if (
        !response.headersSent &&
        !response.hasHeader("content-length") &&
        !response.hasHeader("transfer-encoding")
      ) {
        response.setHeader("Content-Length", Buffer.byteLength(chunk, encoding));
      }
      response.write(chunk, encoding);
    } else {
      response.flushHeaders();
    }
    void discardRest(request, limits).then((whole) => {
      if (whole) end.call(response, callback);
      else request.socket.destroy();
    });
    return this;
  };
  response.end = deferredEnd as unknown as typeof original;
}

/**
 * Makes an HTTP server's early answers reach the clients that write a whole
 * request body before they read (Node's fetch, the OpenAI SDKs, Python's
 * urllib, requests and httpx), and refuses a body before it is sent to the
 * clients that ask first (`Expect: 100-continue`, as curl does).
 *
 * - An answer given before the request's body was read (a 413 for a
 *   declared size over the limit, a 401, a 404) is written at once, but its
 *   response finishes only once the rest of the body has been read and
 *   thrown away, at most `limits.maxBytes` for at most `limits.maxMs`
 *   (`limits.idleMs` without a byte); past a limit the connection is
 *   closed. Closing at once would reset a client still writing: it fails
 *   with EPIPE or "Broken pipe" and never reads the answer.
 * - A request with `Expect: 100-continue` gets `100 Continue` only when the
 *   application starts reading its body (a `data` or `readable` listener, or
 *   `resume()`); an answer given before that goes out with the body never
 *   sent, and the connection closes after it (Node's rule: the client may or
 *   may not send the body next).
 *
 * Call once, before the server listens; the application's `request`
 * listener then runs as before (also for requests that expect 100 Continue).
 *
 * @param server - a `node:http` server
 * @param limits - how much of an unread body is read after an early answer
 * @example
 * const server = http.createServer(app);
 * discardUnreadBodies(server, { maxBytes: 8 * limit, maxMs: 5_000, idleMs: 1_000 });
 */
export function discardUnreadBodies(server: Server, limits: UnreadBodyLimits): void {
  server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    awaitingContinue.add(request);
    const sendContinue = () => {
      request.off("newListener", onListener);
      request.off("resume", sendContinue);
      awaitingContinue.delete(request);
      // Never after a final answer: then the client does not send the body.
      if (!response.headersSent) response.writeContinue();
    };
    const onListener = (event: string | symbol) => {
      if (event === "data" || event === "readable") sendContinue();
    };
    // Reading starts with a `data` or `readable` listener, or a `resume()` (a parser that
    // drains a body it refused, body-parser's way).
    request.on("newListener", onListener);
    request.on("resume", sendContinue);
    server.emit("request", request, response);
  });
  server.prependListener("request", (request: IncomingMessage, response: ServerResponse) => {
    if (declaresBody(request)) finishAfterBody(request, response, limits);
  });
}
