import { type Request, type RequestHandler, Router } from "express";
import type { WebSupport } from "../pages/web-support.js";
import { createConsentRouter } from "./consent-routes.js";
import { createMcpHandler, createMcpHostGuard } from "./mcp-route.js";
import { createOAuthEndpoints, type OAuthEndpoints, REMOTE_MCP_PATH } from "./oauth-endpoints.js";

/**
 * The authorization server's routes and their methods, as the MCP SDK's
 * `mcpAuthRouter` serves them (RFC 8414 and RFC 9728 metadata, authorize,
 * token, RFC 7591 registration, RFC 7009 revocation). Other methods reach
 * the SDK too, which answers CORS preflights and 405.
 */
export const OAUTH_ROUTES: ReadonlyArray<{ path: string; methods: ReadonlyArray<"get" | "post"> }> =
  [
    { path: "/.well-known/oauth-protected-resource", methods: ["get"] },
    { path: `/.well-known/oauth-protected-resource${REMOTE_MCP_PATH}`, methods: ["get"] },
    { path: "/.well-known/oauth-authorization-server", methods: ["get"] },
    { path: "/authorize", methods: ["get", "post"] },
    { path: "/token", methods: ["post"] },
    { path: "/register", methods: ["post"] },
    { path: "/revoke", methods: ["post"] },
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
        endpoints = createOAuthEndpoints(services.oauth, services.oauthClients, origin);
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

  const guard = createMcpHostGuard(services);
  const toSdk: RequestHandler = (request, response, next) => {
    const endpoints = endpointsOf(request);
    if (endpoints === null) next();
    else endpoints.router(request, response, next);
  };
  for (const { path, methods } of OAUTH_ROUTES) {
    for (const method of methods) router[method](path, guard, toSdk);
    router.all(path, guard, toSdk);
  }
  const bearer: RequestHandler = (request, response, next) => {
    const endpoints = endpointsOf(request);
    if (endpoints === null) next();
    else void endpoints.bearer(request, response, next);
  };
  const serve = createMcpHandler(services);
  router.post(REMOTE_MCP_PATH, guard, bearer, serve);
  router.all(REMOTE_MCP_PATH, guard, bearer, serve);
  router.use(createConsentRouter(web));
  return router;
}
