import net from "node:net";

/**
 * Writes `head` (request line and headers) and `body` on a bare TCP
 * connection, leaves the connection open, and resolves with what the server
 * sent once it closes the connection or `timeoutMs` passes (then
 * `timedOut` is true). For requests that lie about their body.
 * `answeredMs` is when the first byte came back (undefined: none did),
 * `elapsedMs` when the connection closed, both from the start.
 */
export async function rawExchange(
  origin: string,
  head: string,
  body: string | Buffer,
  timeoutMs: number,
): Promise<{
  received: string;
  timedOut: boolean;
  answeredMs: number | undefined;
  elapsedMs: number;
}> {
  const started = performance.now();
  const { received, timedOut, firstByteAt } = await exchange(
    origin,
    Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body)]),
    false,
    timeoutMs,
  );
  return {
    received: received.toString("latin1"),
    timedOut,
    answeredMs: firstByteAt === undefined ? undefined : firstByteAt - started,
    elapsedMs: performance.now() - started,
  };
}

/**
 * Writes `bytes` on a fresh connection (then half-closes it when `end`),
 * and resolves with everything received once the server closes the
 * connection, once `complete` says what came is enough, or when
 * `timeoutMs` passes (`timedOut`).
 */
function exchange(
  origin: string,
  bytes: Buffer,
  end: boolean,
  timeoutMs: number,
  complete: (received: Buffer) => boolean = () => false,
): Promise<{ received: Buffer; timedOut: boolean; firstByteAt: number | undefined }> {
  const url = new URL(origin);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    let firstByteAt: number | undefined;
    let done = false;
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(received), timedOut, firstByteAt });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on("connect", () => {
      socket.write(bytes);
      if (end) socket.end();
    });
    socket.on("data", (chunk: Buffer) => {
      firstByteAt ??= performance.now();
      received.push(chunk);
      if (complete(Buffer.concat(received))) finish(false);
    });
    socket.on("error", () => finish(false));
    socket.on("close", () => finish(false));
  });
}

/** A request as it goes on the wire: headers in order (a name may repeat), the body, its framing. */
export interface WireRequest {
  method: string;
  path: string;
  /** Header lines after `Host`, in order; `Content-Length` and `Transfer-Encoding` come from `framing`. */
  headers: Array<[string, string]>;
  body: Buffer;
  /**
   * `exact`: a true Content-Length; `chunked`: Transfer-Encoding: chunked;
   * `declared`: this Content-Length whatever the body's size; when it is
   * more than the body, the connection is half-closed after the body (the
   * client gives up), unless `hold` keeps it open (the client waits).
   */
  framing:
    | { kind: "exact" }
    | { kind: "chunked" }
    | { kind: "declared"; length: number; hold?: boolean };
}

/** What came back on the wire: the first final (non-1xx) answer, or none. */
export interface WireAnswer {
  /** 0 when the server closed the connection without answering. */
  status: number;
  /** Headers by lower-case name (repeated ones joined with ", "). */
  headers: Record<string, string>;
  text: string;
  /** True when nothing came back within the time allowed. */
  timedOut: boolean;
}

/** Whether `raw` holds a whole final answer: its head, and all of a body framed by length or chunks. */
function answerComplete(raw: Buffer): boolean {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return false;
    const head = rest.subarray(0, end).toString("latin1");
    rest = rest.subarray(end + 4);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/u.exec(head)?.[1] ?? 0);
    if (status >= 100 && status < 200) continue;
    const length = /\r\ncontent-length:\s*(\d+)/iu.exec(head)?.[1];
    if (length !== undefined) return rest.length >= Number(length);
    if (/\r\ntransfer-encoding:[^\r]*chunked/iu.test(head)) {
      return rest.includes("\r\n0\r\n\r\n") || rest.subarray(0, 5).toString() === "0\r\n\r\n";
    }
    // Framed by the end of the connection.
    return false;
  }
}

function parseAnswer(raw: Buffer): Omit<WireAnswer, "timedOut"> {
  let rest = raw;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return { status: 0, headers: {}, text: rest.toString("utf8") };
    const [statusLine = "", ...lines] = rest.subarray(0, end).toString("latin1").split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/u.exec(statusLine)?.[1] ?? 0);
    rest = rest.subarray(end + 4);
    if (status >= 100 && status < 200) continue;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let body = rest;
    if (headers["content-length"] !== undefined) {
      body = rest.subarray(0, Number(headers["content-length"]));
    } else if (/chunked/iu.test(headers["transfer-encoding"] ?? "")) {
      const chunks: Buffer[] = [];
      let offset = 0;
      for (;;) {
        const lineEnd = rest.indexOf("\r\n", offset);
        const size =
          lineEnd < 0 ? 0 : Number.parseInt(rest.subarray(offset, lineEnd).toString(), 16);
        if (!(size > 0)) break;
        chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
        offset = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(chunks);
    }
    return { status, headers, text: body.toString("utf8") };
  }
}

/**
 * Sends one request exactly as described on a fresh connection (with
 * `Connection: close`) and reads the first final answer, for requests no
 * HTTP client library will send: repeated headers, a Content-Length that
 * lies, a body cut short. Resolves once that answer is whole (a server may
 * keep reading a body it refused before it closes).
 *
 * @param timeoutMs - how long to wait for the server to answer and close
 */
export async function sendWire(
  origin: string,
  request: WireRequest,
  timeoutMs: number,
): Promise<WireAnswer> {
  const url = new URL(origin);
  const lines = [`${request.method} ${request.path} HTTP/1.1`];
  if (!request.headers.some(([name]) => name.toLowerCase() === "host"))
    lines.push(`Host: ${url.host}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  lines.push("Connection: close");
  const { framing, body } = request;
  if (framing.kind === "exact") lines.push(`Content-Length: ${body.length}`);
  if (framing.kind === "declared") lines.push(`Content-Length: ${framing.length}`);
  if (framing.kind === "chunked") lines.push("Transfer-Encoding: chunked");
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  const payload =
    framing.kind === "chunked"
      ? Buffer.concat([
          ...(body.length === 0
            ? []
            : [Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n")]),
          Buffer.from("0\r\n\r\n"),
        ])
      : body;
  // Half-closing after a whole request would make Node abort it (no httpAllowHalfOpen):
  // only a client that declared more than it sent says "that is all" this way.
  const givesUp =
    framing.kind === "declared" && framing.length > body.length && framing.hold !== true;
  const { received, timedOut } = await exchange(
    origin,
    Buffer.concat([head, payload]),
    givesUp,
    timeoutMs,
    answerComplete,
  );
  return { ...parseAnswer(received), timedOut };
}
