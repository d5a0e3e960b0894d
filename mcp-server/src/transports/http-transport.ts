import http from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type Logger, silentLogger } from "../logging/logger.js";

/** Path the Streamable HTTP endpoint answers on. */
export const MCP_PATH = "/mcp";

/** Host names that mean this machine; the only ones accepted in `Host` and `Origin` when bound to loopback. */
const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

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

function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host.startsWith("127.");
}

/** The host name of a `Host` or `Origin` value, or undefined when it does not parse. */
function hostnameOf(value: string, isOrigin: boolean): string | undefined {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

function jsonRpcError(response: http.ServerResponse, status: number, message: string) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/**
 * Serves the MCP Streamable HTTP transport at `http://host:port/mcp`, in
 * stateless mode: each POST gets a fresh server and transport (no session
 * ID), which is all two request-response tools need. GET and DELETE (the
 * optional server-to-client stream and session end) answer 405.
 *
 * Bound to 127.0.0.1 by default. On a loopback address, requests whose
 * `Host` or `Origin` names another host are refused with 403, so a web page
 * cannot reach the server through DNS rebinding. Anyone who can reach the
 * port can use the configured key, so another address is logged as a warning.
 *
 * @example
 * const endpoint = await serveHttp({ createServer: () => createPersonaServer(options), port: 8788 });
 * console.error(`MCP at ${endpoint.url}`);
 */
export async function serveHttp(options: HttpServeOptions): Promise<HttpEndpoint> {
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? silentLogger;
  const guardHosts = isLoopback(host);
  const httpServer = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://placeholder");
    if (url.pathname !== MCP_PATH) {
      jsonRpcError(response, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    if (guardHosts) {
      const hostName = hostnameOf(request.headers.host ?? "", false);
      if (hostName === undefined || !isLoopback(hostName)) {
        jsonRpcError(response, 403, "forbidden: Host must be a loopback address");
        return;
      }
      const origin = request.headers.origin;
      const originName = origin === undefined ? undefined : hostnameOf(origin, true);
      if (origin !== undefined && (originName === undefined || !isLoopback(originName))) {
        jsonRpcError(
          response,
          403,
          "forbidden: requests from web pages of other hosts are refused",
        );
        return;
      }
    }
    if (request.method !== "POST") {
      response.setHeader("allow", "POST");
      jsonRpcError(response, 405, "method not allowed: this stateless endpoint takes POST only");
      return;
    }
    const server = options.createServer();
    // No sessionIdGenerator: stateless mode (exactOptionalPropertyTypes forbids spelling it undefined).
    const transport = new StreamableHTTPServerTransport({});
    response.on("close", () => {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request, response);
    } catch (error) {
      logger.error(
        `HTTP request failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      if (!response.headersSent) jsonRpcError(response, 500, "internal error");
      else response.end();
    }
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
      `listening on ${host}, not a loopback address: anyone who can reach this port can use the configured API key`,
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
