import http from "node:http";
import type { AddressInfo } from "node:net";
import { readBodyText } from "../../../test-support/read-body.js";
import type { ApiFixture } from "../../../test-support/spawn-service.js";
import type { AppOptions } from "../../server/app.js";
import { loadConfig } from "../../server/config.js";
import { type RunningExampleServer, startServer } from "../../server/server.js";

/**
 * Starts the example server in-process on a free loopback port, configured
 * only from `environment` (no env file is read), with no retries so a
 * failure of the service is answered at once.
 */
export function startExample(
  environment: Record<string, string | undefined>,
  webDirectory?: string,
  options: AppOptions = {},
): Promise<RunningExampleServer> {
  const config = loadConfig({
    environment: { EXAMPLE_PORT: "0", EXAMPLE_MAX_RETRIES: "0", ...environment },
    envFiles: [],
    ...(webDirectory === undefined ? {} : { webDirectory }),
  });
  return startServer(config, options);
}

/** The `SERVICE_*` variables pointing at a running service, as its first run wrote them. */
export function serviceEnvironment(api: ApiFixture): Record<string, string> {
  return {
    SERVICE_API_KEY: api.apiKey,
    SERVICE_PERSONA_ID: api.personaId,
    SERVICE_BASE_URL: api.baseUrl,
  };
}

/**
 * POSTs JSON on a connection of its own and returns the status and parsed
 * body. A connection kept alive from an earlier call is not reused: the
 * example server runs in this process, so while a test blocks the event loop
 * (a synchronous `persona-admin` call) the server's idle timer expires
 * unseen, and on waking it closes the socket just as the next request is
 * written on it (ECONNRESET).
 */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; text: string; contentType: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", connection: "close", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return {
    status: response.status,
    body: parsed,
    text,
    contentType: response.headers.get("content-type") ?? "",
  };
}

/** Calls the service directly (what the example server should relay), with the demo key. */
export async function callService(api: ApiFixture, endpoint: string, body: unknown) {
  const result = await postJson(`${api.baseUrl}/api/v1/${endpoint}`, body, {
    authorization: `Bearer ${api.apiKey}`,
  });
  if (result.status !== 200)
    throw new Error(`service ${endpoint}: ${result.status} ${result.text}`);
  return result.body as Record<string, unknown>;
}

/** A stand-in for the service: a real HTTP server on a loopback port answering with `handler`. */
export interface StandIn {
  /** Its origin, to use as SERVICE_BASE_URL. */
  url: string;
  /** Paths of the requests it received, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** A request as a {@link StandIn} hands it to its handler. */
export interface StandInRequest {
  path: string;
  /** The body as text. */
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** Starts a {@link StandIn}. */
export async function startStandIn(
  handler: (request: StandInRequest, response: http.ServerResponse) => void | Promise<void>,
): Promise<StandIn> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    // A request that fails before its end is not answered: its client went away.
    readBodyText(request).then(
      (body) => {
        const path = request.url ?? "/";
        requests.push(path);
        Promise.resolve(handler({ path, body, headers: request.headers }, response)).catch(() => {
          response.writeHead(599).end();
        });
      },
      () => undefined,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
