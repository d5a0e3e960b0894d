import http from "node:http";
import type { AddressInfo } from "node:net";
import { readBodyText } from "../../../test-support/read-body.js";

/** One scripted answer: a status, headers and a body; or hang without answering; or drop the connection. */
export type ScriptedAnswer =
  | { status: number; headers?: Record<string, string>; body: string }
  | { hang: true }
  | { drop: true };

/** A request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** `performance.now()` when the request's body had arrived. */
  arrivedAt: number;
}

/**
 * A test double of the service on 127.0.0.1 (port 0) that answers requests
 * in order from a script, for what the real service cannot be made to do on
 * demand yet (429 with Retry-After, 503, hanging, dropped connections). When
 * the script runs out it repeats the last answer.
 */
export interface ScriptedServer {
  baseUrl: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** A JSON answer. */
export function json(status: number, value: unknown, headers: Record<string, string> = {}) {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: JSON.stringify(value),
  };
}

/** A plain-text answer. */
export function text(status: number, value: string, headers: Record<string, string> = {}) {
  return {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...headers },
    body: value,
  };
}

/** A valid /generate 200 body. */
export const GENERATE_OK = json(200, {
  status: "success",
  result: { finalReply: "Hello there!", chunks: ["Hello there!"] },
});

export async function startScriptedServer(script: ScriptedAnswer[]): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    // A request that fails before its end is not answered: its client went away.
    readBodyText(request).then(
      (body) => {
        requests.push({
          method: request.method ?? "",
          url: request.url ?? "",
          headers: request.headers,
          body,
          arrivedAt: performance.now(),
        });
        const answer = script[Math.min(requests.length - 1, script.length - 1)];
        if (answer === undefined || "hang" in answer) {
          hanging.add(response);
          return;
        }
        if ("drop" in answer) {
          request.socket.destroy();
          return;
        }
        response.writeHead(answer.status, answer.headers ?? {});
        response.end(answer.body);
      },
      () => undefined,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
