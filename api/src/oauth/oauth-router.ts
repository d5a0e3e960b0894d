import { type Request, Router } from "express";
import type { WebSupport } from "../pages/web-support.js";
import { createConsentRouter } from "./consent-routes.js";
import { createMcpHandler, createMcpHostGuard } from "./mcp-route.js";
import { createOAuthEndpoints, type OAuthEndpoints, REMOTE_MCP_PATH } from "./oauth-endpoints.js";

/** The paths of the authorization server and the resource, behind the host guard. */
const GUARDED_PATHS = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-authorization-server",
  "/authorize",
  "/token",
  "/register",
  "/revoke",
  REMOTE_MCP_PATH,
];

/**
 * The remote MCP endpoint and its OAuth 2.1 authorization server
 * (docs/API.md §4.7): `/mcp`, the metadata documents, authorize (then the
 * consent page), token, registration and revocation. The issuer and the
 * resource are of the service's public origin (`PERSONA_PUBLIC_URL`, else
 * the address a request arrived on, never its `Host` header); an origin the
 * MCP SDK cannot use as an issuer (plain http on a host other than
 * localhost or 127.0.0.1) serves none of this.
 */
export function createOAuthRouter(web: WebSupport): Router {
  const { services } = web;
  const router = Router();
  const byOrigin = new Map<string, OAuthEndpoints | null>();
  const endpointsOf = (request: Request): OAuthEndpoints | null => {
    const origin = web.origin(request);
    let endpoints = byOrigin.get(origin);
    if (endpoints === undefined) {
      try {
        endpoints = createOAuthEndpoints(services.oauth, origin);
      } catch (error) {
        services.logger.warn(
          { origin, reason: error instanceof Error ? error.message : String(error) },
          "OAuth and /mcp are off for this origin: set PERSONA_PUBLIC_URL to an https URL",
        );
        endpoints = null;
      }
      byOrigin.set(origin, endpoints);
    }
    return endpoints;
  };

  router.use(GUARDED_PATHS, createMcpHostGuard(services));
  router.use((request, response, next) => {
    const endpoints = endpointsOf(request);
    if (endpoints === null) next();
    else endpoints.router(request, response, next);
  });
  const serve = createMcpHandler(services);
  router.all(
    REMOTE_MCP_PATH,
    (request, response, next) => {
      const endpoints = endpointsOf(request);
      if (endpoints === null) next();
      else void endpoints.bearer(request, response, next);
    },
    serve,
  );
  router.use(createConsentRouter(web));
  return router;
}
