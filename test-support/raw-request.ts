import http from "node:http";

/** What {@link rawRequest} answers: the status, the Content-Type and the body as text. */
export interface RawAnswer {
  status: number;
  type: string;
  text: string;
}

/**
 * Sends one HTTP request with exactly the headers given, `Host` included
 * (fetch does not let a caller set `Host`): for the DNS-rebinding tests,
 * which connect to 127.0.0.1 and name another host.
 *
 * @param origin - where to connect, e.g. `http://127.0.0.1:41234`
 * @param options.host - the `Host` header to send
 * @param options.body - sent as JSON when given
 */
export function rawRequest(
  origin: string,
  pathname: string,
  options: { method?: string; host: string; body?: unknown },
): Promise<RawAnswer> {
  const url = new URL(origin);
  const headers: Record<string, string> = { host: options.host };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname.replace(/^\[|\]$/gu, ""),
        port: url.port,
        method: options.method ?? "GET",
        path: pathname,
        headers,
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers["content-type"] ?? "",
            text,
          }),
        );
      },
    );
    request.on("error", reject);
    request.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}
