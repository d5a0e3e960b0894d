import http from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "./app.js";
import type { Services } from "./services.js";

/** A listening service. */
export interface RunningServer {
  /** Origin the server listens on, e.g. `http://127.0.0.1:8787`. */
  url: string;
  port: number;
  /** Stops accepting connections, lets requests in flight finish, closes the store. */
  stop(): Promise<void>;
}

/**
 * Starts the HTTP server on the configured host and port (0 picks one), with
 * timeouts so stalled clients cannot hold connections forever.
 */
export async function startServer(services: Services): Promise<RunningServer> {
  const server = http.createServer(createApp(services));
  server.headersTimeout = 15_000;
  server.requestTimeout = 60_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(services.config.PERSONA_PORT, services.config.PERSONA_HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = services.config.PERSONA_HOST.includes(":")
    ? `[${services.config.PERSONA_HOST}]`
    : services.config.PERSONA_HOST;
  return {
    url: `http://${host}:${port}`,
    port,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await services.database.destroy();
    },
  };
}
