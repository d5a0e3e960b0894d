import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/**
 * Writes a JSON-RPC error body `{ jsonrpc: "2.0", error: { code: -32000,
 * message }, id: null }` with `status` and any extra `headers` — how every
 * refusal of an MCP Streamable HTTP endpoint is shaped (MCP transports,
 * "Streamable HTTP": errors outside a request are JSON-RPC errors with a
 * null id).
 */
export function writeJsonRpcError(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { ...headers, "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** Options of {@link handleStatelessRequest}. */
export interface StatelessRequestOptions {
  /** Makes the MCP server for this one request. */
  createServer: () => McpServer;
  /** Largest request body read, in bytes; 413 above. */
  maxRequestBodySize: number;
  /** Told the message of a failure inside the transport (then a 500 is answered). */
  onError: (message: string) => void;
}

/**
 * Serves one request of a stateless MCP Streamable HTTP endpoint: POST only
 * (anything else 405 with `Allow: POST` — there is no server-to-client
 * stream and no session to end), a fresh server and transport for the
 * request (no session ID), both closed when the response closes. A failure
 * inside is reported to `onError` and answered 500 (or the response ended,
 * when its headers are already out). Never throws.
 *
 * Used by `persona-mcp --http` and by the service's own `/mcp`, so both
 * answer alike. A request `auth` property (the MCP SDK's `AuthInfo`), when
 * set by a bearer check before, reaches the tools as the SDK passes it.
 */
export async function handleStatelessRequest(
  request: IncomingMessage,
  response: ServerResponse,
  options: StatelessRequestOptions,
): Promise<void> {
  if (request.method !== "POST") {
    writeJsonRpcError(
      response,
      405,
      "method not allowed: this stateless endpoint takes POST only",
      {
        allow: "POST",
      },
    );
    return;
  }
  const server = options.createServer();
  // No sessionIdGenerator: stateless mode (exactOptionalPropertyTypes forbids spelling it undefined).
  const transport = new StreamableHTTPServerTransport({
    maxRequestBodySize: options.maxRequestBodySize,
  });
  response.on("close", () => {
    transport.close().catch(() => {});
    server.close().catch(() => {});
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request, response);
  } catch (error) {
    options.onError(error instanceof Error ? error.message : String(error));
    if (!response.headersSent) writeJsonRpcError(response, 500, "internal error");
    else response.end();
  }
}
