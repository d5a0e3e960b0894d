import http from "node:http";

/** What {@link rawRequest} answers: the status, the Content-Type, every header and the body as text. */
export interface RawAnswer {
  status: number;
  type: string;
  /** Headers by lower-case name. */
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * Sends one HTTP request with exactly the headers given, which fetch cannot:
 * a chosen `Host` (the DNS-rebinding tests connect to 127.0.0.1 and name
 * another host), or a header sent more than once (an array value sends one
 * line per element: two `Authorization` headers, say; fetch joins them).
 *
 * @param origin - where to connect, e.g. `http://127.0.0.1:41234`
 * @param options.host - the `Host` header to send (default: the origin's)
 * @param options.headers - more headers
 * @param options.body - sent as JSON when given
 * @param options.raw - sent as it is, in place of `body`
 */
export function rawRequest(
  origin: string,
  pathname: string,
  options: {
    method?: string;
    host?: string;
    headers?: Record<string, string | string[]>;
    body?: unknown;
    raw?: string | Buffer;
  },
): Promise<RawAnswer> {
  const url = new URL(origin);
  const headers: Record<string, string | string[]> = {
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.body === undefined ? {} : { "content-type": "application/json" }),
    ...options.headers,
  };
  const payload =
    options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname.replace(/^\[|\]$/gu, ""),
        port: url.port,
        method: options.method ?? "GET",
        path: pathname,
        headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers["content-type"] ?? "",
            headers: response.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}
