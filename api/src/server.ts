import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { discardUnreadBodies, type UnreadBodyLimits } from "@persona-reply/shared/node";
import { createApp } from "./app.js";
import type { Config } from "./config/config.js";
import type { Logger } from "./logging/logger.js";
import { REQUEST_ID_HEADER } from "./logging/request-context.js";
import { preloadOfflineComposer } from "./providers/offline/offline-provider.js";
import type { Services } from "./services.js";

/** A listening service. */
export interface RunningServer {
  /** Origin the server listens on, e.g. `http://127.0.0.1:8787`. */
  url: string;
  port: number;
  /**
   * Drains and stops: refuses new connections, closes idle
   * keep-alive ones, answers the requests in flight with `Connection: close`
   * (and any that arrive meanwhile on an open connection), closes whatever is
   * still open at the drain deadline, then closes the store. The instance's
   * upstreams row is deleted as the drain starts: it takes no new requests.
   */
  stop(): Promise<void>;
}

/** The HTTP server's timeouts in milliseconds (docs/OPERATIONS.md "Timeouts"). */
export interface ServerTimeouts {
  headers: number;
  request: number;
  keepAlive: number;
  socket: number;
  /** How long {@link RunningServer.stop} waits for requests in flight. */
  drain: number;
}

/**
 * The server timeouts of a configuration. The whole-request timeout is at
 * least the headers timeout (Node requires it); the idle-socket timeout,
 * when not set, outlasts the slowest model call (provider timeout ×
 * attempts + 30 s, at least 120 s), because a connection is idle while its
 * request waits for the model. The drain deadline, when not set, lets the
 * slowest model call finish (provider timeout × attempts + 5 s).
 */
export function serverTimeouts(config: Config): ServerTimeouts {
  const attempts = config.PERSONA_PROVIDER_MAX_RETRIES + 1;
  const slowestModelCall = config.PERSONA_PROVIDER_TIMEOUT_MS * attempts + 30_000;
  return {
    headers: config.PERSONA_HEADERS_TIMEOUT_MS,
    request: Math.max(config.PERSONA_REQUEST_TIMEOUT_MS, config.PERSONA_HEADERS_TIMEOUT_MS),
    keepAlive: config.PERSONA_KEEP_ALIVE_TIMEOUT_MS,
    socket: config.PERSONA_SOCKET_TIMEOUT_MS ?? Math.max(120_000, slowestModelCall),
    drain: config.PERSONA_DRAIN_TIMEOUT_MS ?? config.PERSONA_PROVIDER_TIMEOUT_MS * attempts + 5_000,
  };
}

/**
 * How much of a request body the server still reads after answering before
 * it (a 413, a 415, a 401 on a page): eight times the body limit (8 MiB by
 * default), for at most 5 s and 1 s without a byte. A client that writes its
 * whole body before reading then reads the answer instead of a reset
 * connection; past these limits the connection is closed.
 */
export function unreadBodyLimits(config: Config): UnreadBodyLimits {
  return { maxBytes: 8 * config.PERSONA_BODY_LIMIT_BYTES, maxMs: 5_000, idleMs: 1_000 };
}

/** Statuses for errors Node's HTTP parser raises before express sees a request. */
function clientErrorStatus(error: NodeJS.ErrnoException): number {
  if (error.code === "HPE_HEADER_OVERFLOW") return 431;
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  return 400;
}

/**
 * Answers requests Node's HTTP parser refused (malformed request line,
 * headers too large, headers or body too slow) with a plain-text error that
 * carries an `x-request-id` like every other answer, logs it with that ID,
 * and closes the connection.
 */
function answerClientError(logger: Logger) {
  return (error: NodeJS.ErrnoException, socket: Socket) => {
    // A response already under way cannot be replaced by an error (Node's own rule).
    const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || error.code === "ECONNRESET" || current?.headersSent === true) {
      socket.destroy();
      return;
    }
    const status = clientErrorStatus(error);
    const requestId = randomUUID();
    const text = `${http.STATUS_CODES[status] ?? "Bad Request"}\n`;
    logger.info({ requestId, status, code: error.code }, "refused a malformed or slow request");
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? "Bad Request"}\r\n` +
        `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${text}`,
    );
  };
}

/**
 * Starts the HTTP server on the configured host and port (0 picks one), with
 * timeouts so stalled clients cannot hold connections forever: headers and
 * whole-request deadlines (slow senders get 408), a keep-alive limit, and an
 * idle-socket limit (clients that never read their answer are dropped).
 */
export async function startServer(services: Services): Promise<RunningServer> {
  const timeouts = serverTimeouts(services.config);
  const server = http.createServer(
    // Node checks the headers and request deadlines on this interval (30 s by default).
    {
      connectionsCheckingInterval: Math.max(250, Math.min(5_000, Math.floor(timeouts.headers / 4))),
    },
    createApp(services),
  );
  server.headersTimeout = timeouts.headers;
  server.requestTimeout = timeouts.request;
  server.keepAliveTimeout = timeouts.keepAlive;
  // Without a 'timeout' listener Node destroys a socket idle this long.
  server.timeout = timeouts.socket;
  server.on("clientError", answerClientError(services.logger));
  // Early answers reach clients still writing; Expect: 100-continue gets its 413 before the body.
  discardUnreadBodies(server, unreadBodyLimits(services.config));
  // Responses under way, so a drain can ask each to close its connection.
  const inFlight = new Set<http.ServerResponse>();
  let draining = false;
  server.prependListener("request", (_request, response) => {
    if (draining) response.setHeader("Connection", "close");
    inFlight.add(response);
    response.once("close", () => {
      inFlight.delete(response);
      // A response whose headers had gone out before the drain leaves its connection idle.
      if (draining) server.closeIdleConnections();
    });
  });
  // The offline engine's composer loads before the first request can wait on it.
  await preloadOfflineComposer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(services.config.PERSONA_PORT, services.config.PERSONA_HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await services.billing.startSweeper();
  services.retention.start();
  services.canaryWatch.start();
  services.sampler.start();
  await services.heartbeat.start();
  const host = services.config.PERSONA_HOST.includes(":")
    ? `[${services.config.PERSONA_HOST}]`
    : services.config.PERSONA_HOST;
  return {
    url: `http://${host}:${port}`,
    port,
    async stop() {
      draining = true;
      const leaving = services.heartbeat.stop();
      for (const response of inFlight) {
        if (!response.headersSent) response.setHeader("Connection", "close");
      }
      await new Promise<void>((resolve) => {
        const deadline = setTimeout(() => {
          services.logger.warn(
            { drainMs: timeouts.drain, requestsInFlight: inFlight.size },
            "drain deadline passed; closing the connections still open",
          );
          server.closeAllConnections();
        }, timeouts.drain);
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
        server.closeIdleConnections();
      });
      await leaving;
      await services.retention.stop();
      await services.canaryWatch.stop();
      await services.sampler.stop();
      await services.oauthClients.close();
      await services.billing.close();
      await services.store.close();
      await services.tracing?.shutdown();
    },
  };
}
