import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { PersonaClient } from "@persona-reply/client";
import {
  type ActiveSettings,
  createPersonaServer,
  handleStatelessRequest,
  TOOL_RETRY_POLICY,
  writeJsonRpcError,
} from "@persona-reply/mcp-server";
import { createHostCheck, isLoopbackAddress } from "@persona-reply/shared/node";
import type { Request, RequestHandler } from "express";
import type { Services } from "../services.js";
import { MCP_RELAY_HEADER, MCP_RELAY_SECRET } from "./mcp-relay.js";

/** Largest request body `/mcp` reads, in bytes (the MCP SDK's default, as persona-mcp). */
export const MCP_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * The DNS-rebinding guard of `/mcp` and the OAuth endpoints, as the pages
 * and `/metrics` have it: on a loopback address, `Host` must be a loopback
 * name, an IP address or a configured name (`PERSONA_ALLOWED_HOSTS`, the
 * public URL's host), and an `Origin`, when sent, must name such a host too.
 * 403 with a JSON-RPC error body otherwise.
 */
export function createMcpHostGuard(services: Services): RequestHandler {
  const publicUrl = services.config.PERSONA_PUBLIC_URL;
  const allowed = createHostCheck([
    ...services.config.PERSONA_ALLOWED_HOSTS,
    ...(publicUrl === undefined ? [] : [new URL(publicUrl).hostname]),
  ]);
  return (request, response, next) => {
    if (!isLoopbackAddress(request.socket.localAddress)) {
      next();
      return;
    }
    if (!allowed(request.headers.host)) {
      writeJsonRpcError(
        response,
        403,
        "forbidden: this host name is not one this service answers on",
      );
      return;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !(URL.canParse(origin) && allowed(new URL(origin).host))) {
      writeJsonRpcError(
        response,
        403,
        "forbidden: requests from web pages of other hosts are refused",
      );
      return;
    }
    next();
  };
}

/** The address this request arrived on, as an origin the service itself answers on. */
function ownAddress(request: Request): string {
  const address = (request.socket.localAddress ?? "127.0.0.1").replace(/^::ffff:/u, "");
  const host = address.includes(":") ? `[${address}]` : address;
  return `http://${host}:${request.socket.localPort ?? 80}`;
}

/**
 * The settings of one `/mcp` request's tool calls: a client of this same
 * process's API (the address the request arrived on) with the request's
 * access token, and the relay header that lets an access token through
 * there (oauth/mcp-relay.ts). So each call runs the API's request pipeline
 * — authenticate, authorize, rate limits, reserve, reply, settle, usage row
 * — exactly as an API key's call does.
 */
function settingsOf(request: Request, auth: AuthInfo): ActiveSettings {
  const personaId = String(auth.extra?.personaId ?? "");
  const relay: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set(MCP_RELAY_HEADER, MCP_RELAY_SECRET);
    return fetch(input, { ...init, headers });
  };
  return {
    client: new PersonaClient({
      apiKey: auth.token,
      personaId,
      baseUrl: ownAddress(request),
      retry: TOOL_RETRY_POLICY,
      fetch: relay,
      traceContext: "off",
    }),
    personaId,
    maskedApiKey: "the app's OAuth access token",
    secrets: [auth.token],
    origins: {
      apiKey: "this app's connection (OAuth)",
      personaId: "the persona chosen when this app was connected",
      baseUrl: "this service",
    },
    apiKeySource: "environment",
  };
}

/**
 * `POST /mcp`: the MCP Streamable HTTP endpoint, stateless (a fresh server
 * and transport per request, no session ID), serving the very server
 * `persona-mcp` serves (`createPersonaServer` of `@persona-reply/mcp-server`:
 * the same `generate` and `personify` tools, schemas and error texts). The
 * bearer check runs before (oauth/oauth-endpoints.ts). GET and DELETE answer
 * 405: there is no server-to-client stream and no session to end.
 */
export function createMcpHandler(services: Services): RequestHandler {
  return async (request, response) => {
    const auth = (request as Request & { auth?: AuthInfo }).auth;
    if (auth === undefined) {
      writeJsonRpcError(response, 401, "unauthorized");
      return;
    }
    await handleStatelessRequest(request, response, {
      createServer: () =>
        createPersonaServer({
          clientSource: () => settingsOf(request, auth),
          envFile: "this app's connection",
        }),
      maxRequestBodySize: MCP_BODY_LIMIT_BYTES,
      onError: (error) => services.logger.error({ error }, "MCP request failed"),
    });
  };
}
