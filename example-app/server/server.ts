import http from "node:http";
import type { AddressInfo } from "node:net";
import { type AppOptions, createApp } from "./app.js";
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
