import http from "node:http";
import net from "node:net";

/** An answer read off the wire: status, headers (lower-case names), body text, time taken. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Milliseconds from sending to the end of the answer. */
  elapsedMs: number;
}

/**
 * Sends one request with headers exactly as given: an array value sends the
 * header once per element (two `Authorization` lines, say), which `fetch`
 * cannot do — it joins them into one.
 */
export function rawRequest(
  origin: string,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string | string[]>;
    body?: string | Buffer;
  },
): Promise<RawAnswer> {
  const url = new URL(options.path, origin);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? "POST", headers: options.headers ?? {}, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString("utf8"),
            elapsedMs: performance.now() - started,
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

/**
 * Writes `head` (request line and headers) and `body` on a bare TCP
 * connection, leaves the connection open, and resolves with what the server
 * sent once it closes the connection or `timeoutMs` passes (then
 * `timedOut` is true). For requests that lie about their body.
 */
export function rawExchange(
  origin: string,
  head: string,
  body: string | Buffer,
  timeoutMs: number,
): Promise<{ received: string; timedOut: boolean; elapsedMs: number }> {
  const url = new URL(origin);
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = "";
    let done = false;
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received, timedOut, elapsedMs: performance.now() - started });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on("connect", () => {
      socket.write(head);
      socket.write(body);
    });
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", () => finish(false));
    socket.on("close", () => finish(false));
  });
}
