import http from "node:http";
import type { AddressInfo } from "node:net";
import { discardUnreadBodies } from "@persona-reply/shared/node";
import { type AppOptions, BODY_LIMIT_BYTES, createApp } from "./app.js";
import type { ExampleConfig } from "./config.js";

/** A listening example server. */
export interface RunningExampleServer {
  /** Origin it listens on, e.g. `http://127.0.0.1:5173`. */
  url: string;
  port: number;
  /** Stops accepting connections and lets requests in flight finish. */
  stop(): Promise<void>;
}

/**
 * Starts the example server on the configured host and port (0 picks a
 * free one).
 *
 * @throws the listen error, e.g. `EADDRINUSE` when the port is taken
 * @example
 * const server = await startServer(loadConfig());
 * console.log(server.url);
 * await server.stop();
 */
export async function startServer(
  config: ExampleConfig,
  options: AppOptions = {},
): Promise<RunningExampleServer> {
  const server = http.createServer(createApp(config, options));
  server.headersTimeout = 15_000;
  // A service call may take up to the configured timeout, per retry.
  server.requestTimeout = config.timeoutMs * (config.maxRetries + 1) + 10_000;
  // An answer given before a body was read (a body over the limit, a 403)
  // reaches a client still writing it: the rest is read and thrown away first,
  // up to 8 times the limit, for 5 s at most. A client that sent `Expect:
  // 100-continue` gets the refusal before it sends the body.
  discardUnreadBodies(server, { maxBytes: 8 * BODY_LIMIT_BYTES, maxMs: 5_000, idleMs: 1_000 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
