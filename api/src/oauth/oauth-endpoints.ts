import { metadataHandler } from "@modelcontextprotocol/sdk/server/auth/handlers/metadata.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from "@modelcontextprotocol/sdk/server/auth/router.js";
import type {
  OAuthMetadata,
  OAuthProtectedResourceMetadata,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { type RequestHandler, Router } from "express";
import type { OAuthClients } from "./oauth-clients.js";
import { PersonaOAuthProvider } from "./oauth-provider.js";
import type { OAuthStore } from "./oauth-store.js";

/** Path of the remote MCP endpoint, the protected resource. */
export const REMOTE_MCP_PATH = "/mcp";

/** The SDK handlers' rate limits, without the check that they are made at start-up. */
const LIMITS_BUILT_LATE = { validate: { creationStack: false } };

/** The OAuth machinery of one origin (the issuer and the resource's host). */
export interface OAuthEndpoints {
  provider: PersonaOAuthProvider;
  /** `/.well-known/*`, `/authorize`, `/token`, `/register`, `/revoke` (the MCP SDK's router). */
  router: Router;
  /** 401 with `WWW-Authenticate: Bearer …, resource_metadata="…"` unless a valid token for `/mcp`. */
  bearer: RequestHandler;
}

/**
 * Builds the authorization server and the bearer check of `/mcp` for one
 * origin, from the MCP SDK's server-side auth pieces: `mcpAuthRouter`
 * (RFC 8414 metadata, RFC 9728 protected-resource metadata at
 * `/.well-known/oauth-protected-resource/mcp`, authorize, token, RFC 7591
 * registration, RFC 7009 revocation), plus the protected-resource metadata
 * at the root `/.well-known/oauth-protected-resource` too, and
 * `requireBearerAuth` bound to the `/mcp` resource (RFC 8707). The
 * authorization-server metadata is the SDK's with
 * `client_id_metadata_document_supported: true` when URL client IDs are
 * accepted (`PERSONA_OAUTH_CLIENT_METADATA` other than `off`).
 *
 * @param origin - the service's public origin (`PERSONA_PUBLIC_URL`, else
 *   the address the request arrived on), e.g. `https://persona.example`
 * @throws {Error} when the origin cannot be an issuer (http on a host other
 *   than localhost or 127.0.0.1: the MCP SDK requires https)
 */
export function createOAuthEndpoints(
  store: OAuthStore,
  clients: OAuthClients,
  origin: string,
): OAuthEndpoints {
  const issuerUrl = new URL(origin);
  const resource = new URL(`${origin}${REMOTE_MCP_PATH}`);
  const provider = new PersonaOAuthProvider(store, clients, resource);
  const router = Router();
  if (clients.documentsSupported) {
    const serverMetadata: OAuthMetadata = {
      ...createOAuthMetadata({ provider, issuerUrl }),
      client_id_metadata_document_supported: true,
    };
    // Before the SDK's router, which serves its own metadata at the same path.
    router.use("/.well-known/oauth-authorization-server", metadataHandler(serverMetadata));
  }
  const resourceMetadata: OAuthProtectedResourceMetadata = {
    resource: resource.href,
    authorization_servers: [createOAuthMetadata({ provider, issuerUrl }).issuer],
    resource_name: "Persona Reply",
  };
  router.use("/.well-known/oauth-protected-resource", (request, response, next) =>
    request.path === "/" ? metadataHandler(resourceMetadata)(request, response, next) : next(),
  );
  router.use(
    mcpAuthRouter({
      provider,
      issuerUrl,
      resourceServerUrl: resource,
      resourceName: "Persona Reply",
      // The SDK's per-IP limits stay on; they are built on this origin's first request,
      // which express-rate-limit's start-up check would otherwise report on every origin.
      authorizationOptions: { rateLimit: LIMITS_BUILT_LATE },
      tokenOptions: { rateLimit: LIMITS_BUILT_LATE },
      clientRegistrationOptions: { rateLimit: LIMITS_BUILT_LATE },
      revocationOptions: { rateLimit: LIMITS_BUILT_LATE },
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
    expectedResource: resource,
  });
  return { provider, router, bearer };
}
