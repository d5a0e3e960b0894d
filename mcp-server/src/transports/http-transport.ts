import http from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  discardUnreadBodies,
  isLoopbackAddress,
  isLoopbackHost,
  isLoopbackOrigin,
} from "@persona-reply/shared/node";
import { type Logger, silentLogger } from "../logging/logger.js";
import { readBearerToken } from "./bearer-token.js";
import { handleStatelessRequest, writeJsonRpcError } from "./stateless-request.js";

/** Path the Streamable HTTP endpoint answers on. */
export const MCP_PATH = "/mcp";

/** Largest request body the endpoint reads, in bytes (the MCP SDK's default, 4 MiB; 413 above). */
export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** Options of {@link serveHttp}. */
export interface HttpServeOptions {
  /** Makes the MCP server for one request (the transport is stateless). */
  createServer: () => McpServer;
  /** Address to bind; default `127.0.0.1`. */
  host?: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** Where failures are logged; default silent. */
  logger?: Logger;
  /**
   * Who may call: `{ bearerToken }` requires `Authorization: Bearer <token>`
   * on every request (see `createBearerToken`); `"none"` serves anyone who
   * can reach the port (`--no-auth`). No default, so opting out is explicit.
   */
  authorization: { bearerToken: string } | "none";
}

/** A running Streamable HTTP endpoint. */
export interface HttpEndpoint {
  /** The endpoint's URL, e.g. `http://127.0.0.1:8788/mcp`. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Stops accepting requests and closes open connections. */
  close(): Promise<void>;
}

/** Whether an address given to `listen()` is on the loopback interface (`127.0.0.1`, `::1`, `localhost`). */
function isLoopbackBinding(host: string): boolean {
  return isLoopbackAddress(host) || isLoopbackHost(host);
}

/**
 * Serves the MCP Streamable HTTP transport at `http://host:port/mcp`, in
 * stateless mode: each POST gets a fresh server and transport (no session
 * ID), which is all two request-response tools need. GET and DELETE (the
 * optional server-to-client stream and session end) answer 405.
 *
 * Bound to 127.0.0.1 by default. On a loopback address, a request whose
 * `Host` is not exactly a loopback name (`localhost`, a 127.0.0.0/8 address,
 * `[::1]`; never a DNS name that starts like one), or that carries an
 * `Origin` that is not, is refused with 403, so a web page cannot reach the
 * server through DNS rebinding (`isLoopbackHost` of
 * `@persona-reply/shared/node`). A request without `Origin` (not from a
 * browser) passes that check. Then, unless `authorization` is `"none"`,
 * a request without the bearer token is refused with 401 and
 * `WWW-Authenticate: Bearer` (RFC 6750 §3). Another bind address, or no
 * token, is logged as a warning. Every refusal is a JSON-RPC error body
 * `{ jsonrpc: "2.0", error: { code: -32000, message }, id: null }`, also
 * to a client that writes its whole body before it reads (a refusal given
 * before the body was read waits for the rest of it, within bounds:
 * `discardUnreadBodies` of `@persona-reply/shared/node`); a body over
 * {@link BODY_LIMIT_BYTES} is a 413, before the body is sent when the client
 * asked with `Expect: 100-continue`.
 *
 * @example
 * const endpoint = await serveHttp({ createServer: () => createPersonaServer(options), port: 8788 });
 * console.error(`MCP at ${endpoint.url}`);
 */
export async function serveHttp(options: HttpServeOptions): Promise<HttpEndpoint> {
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? silentLogger;
  const guardHosts = isLoopbackBinding(host);
  const token = options.authorization === "none" ? undefined : options.authorization.bearerToken;
  const httpServer = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://placeholder");
    if (url.pathname !== MCP_PATH) {
      writeJsonRpcError(response, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    if (guardHosts) {
      if (!isLoopbackHost(request.headers.host)) {
        writeJsonRpcError(response, 403, "forbidden: Host must be a loopback address");
        return;
      }
      const origin = request.headers.origin;
      if (origin !== undefined && !isLoopbackOrigin(origin)) {
        writeJsonRpcError(
          response,
          403,
          "forbidden: requests from web pages of other hosts are refused",
        );
        return;
      }
    }
    if (token !== undefined) {
      const credential = readBearerToken(request.headers.authorization, token);
      if (credential !== "valid") {
        writeJsonRpcError(
          response,
          401,
          credential === "missing"
            ? "unauthorized: send the token persona-mcp printed at start as Authorization: Bearer <token>"
            : "unauthorized: the bearer token is not this server's",
          {
            "www-authenticate":
              credential === "missing"
                ? 'Bearer realm="persona-mcp"'
                : 'Bearer realm="persona-mcp", error="invalid_token"',
          },
        );
        return;
      }
    }
    await handleStatelessRequest(request, response, {
      createServer: options.createServer,
      maxRequestBodySize: BODY_LIMIT_BYTES,
      onError: (message) => logger.error(`HTTP request failed: ${message}`),
    });
  });
  // A refusal given before the body was read (401, 403, the SDK's 413) reaches a
  // client still writing it: the rest is read and thrown away first, up to 8 times
  // the limit, for 5 s at most. `Expect: 100-continue` gets the refusal before the body.
  discardUnreadBodies(httpServer, {
    maxBytes: 8 * BODY_LIMIT_BYTES,
    maxMs: 5_000,
    idleMs: 1_000,
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port, host, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  if (!guardHosts) {
    logger.warn(
      `listening on ${host}, not a loopback address: anyone who can reach this port${token === undefined ? "" : " and holds the token"} can use the configured API key`,
    );
  }
  if (token === undefined) {
    logger.warn(
      "no token required (--no-auth): any program on this computer that can reach the port can use the configured API key",
    );
  }
  const port = (httpServer.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      }),
  };
}
