import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import { ServiceError } from "../http/service-error.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { ACCESS_TOKEN_PREFIX, type AccessGrant } from "./oauth-store.js";

/**
 * The header by which `/mcp`'s tool calls reach this same process's
 * `/api/v1/generate` and `/api/v1/personify` (oauth/mcp-route.ts): it
 * carries a secret made at start and never written anywhere, so an access
 * token — bound to the `/mcp` resource (RFC 8707) — is accepted on the API
 * routes only from `/mcp` itself, never from a client that holds one.
 */
export const MCP_RELAY_HEADER = "persona-mcp-relay";

/** This process's relay secret (256 random bits, base64url). */
export const MCP_RELAY_SECRET = randomBytes(32).toString("base64url");

/** Whether a presented credential is an OAuth access token (not an API key). */
export function isAccessToken(credential: string): boolean {
  return credential.startsWith(ACCESS_TOKEN_PREFIX);
}

function relayed(request: Request): boolean {
  const presented = Buffer.from(request.get(MCP_RELAY_HEADER) ?? "");
  const expected = Buffer.from(MCP_RELAY_SECRET);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/**
 * Authenticates an API request that carries an OAuth access token: only a
 * tool call relayed by `/mcp` may, and the token must be known, unexpired
 * and of a grant that is not revoked.
 *
 * @throws {ServiceError} `invalid_api_key` (401) otherwise; the token is never in the message
 */
export async function authenticateAccessToken(
  context: PipelineContext,
  request: Request,
  token: string,
): Promise<AccessGrant> {
  if (!relayed(request)) {
    throw new ServiceError(
      "invalid_api_key",
      "invalid API key: this is an OAuth access token, accepted by the MCP endpoint (/mcp) only",
    );
  }
  const access = await context.oauth.findAccess(token);
  if (access === undefined || access.revoked || access.expiresAt * 1000 <= Date.now()) {
    throw new ServiceError("invalid_api_key", "invalid access token: unknown, expired or revoked");
  }
  void context.oauth.touch(access).catch(() => undefined);
  return access;
}
