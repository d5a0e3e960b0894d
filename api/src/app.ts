import { API_PREFIX, ENDPOINT_PATHS } from "@persona-reply/shared";
import express, { type Express } from "express";
import { createCompletionsRouter } from "./completions/completions-route.js";
import { createGenerateRouter } from "./generate/generate-route.js";
import { createHealthRouter, HEALTH_PATHS } from "./health/health-routes.js";
import { ReadinessProbe } from "./health/readiness.js";
import { createErrorHandler } from "./http/error-handler.js";
import { setErrorStyle } from "./http/error-style.js";
import { limitPipelining } from "./http/pipelining-limit.js";
import { ServiceError } from "./http/service-error.js";
import { requestLogging } from "./logging/request-logging.js";
import { createLoginRouter } from "./login/login-route.js";
import { createMetricsMiddleware } from "./metrics/metrics-middleware.js";
import { createMetricsRouter, METRICS_PATH } from "./metrics/metrics-route.js";
import { createModelsRouter } from "./models/models-route.js";
import { createOAuthRouter } from "./oauth/oauth-router.js";
import { buildOpenApiDocument } from "./openapi/openapi-document.js";
import { createDocsRouter, createOpenApiRouter } from "./openapi/openapi-route.js";
import { createLandingRouter } from "./pages/landing-routes.js";
import { createWebSupport } from "./pages/web-support.js";
import { createPersonifyRouter } from "./personify/personify-route.js";
import { createPlaygroundRouter } from "./playground/playground-router.js";
import { SessionStore } from "./playground/session-store.js";
import type { Services } from "./services.js";
import { createRequestSpans } from "./tracing/request-span.js";

/**
 * Builds the express application (no listening; see startServer). The
 * metered endpoints run the request pipeline (pipeline/metered-request.ts):
 * parse and validate → authenticate → authorize → rate limits and reserve
 * → reply → settle → respond.
 */
export function createApp(services: Services): Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("trust proxy", false);

  // One server span per request when tracing is configured (tracing/request-span.ts).
  if (services.tracing !== undefined) app.use(createRequestSpans(services.tracing, app));

  // One log line per request, with its ID on every line written while it is served.
  app.use(
    requestLogging(
      services.logger,
      (url) => (HEALTH_PATHS as readonly string[]).includes(url) || url === METRICS_PATH,
    ),
  );
  app.use(createMetricsMiddleware(services.metrics, app));
  app.use(limitPipelining());

  app.use(
    createHealthRouter(
      new ReadinessProbe(
        services.store,
        services.billing.rateLimiter,
        services.config.PERSONA_REDIS_URL !== undefined,
        services.billing.balances.instanceId,
        services.config.PERSONA_READINESS_TIMEOUT_MS,
      ),
    ),
  );

  app.use(
    createMetricsRouter(
      services.metrics,
      services.config.PERSONA_METRICS_TOKEN,
      services.config.PERSONA_ALLOWED_HOSTS,
    ),
  );
  const document = buildOpenApiDocument(
    services.config.PERSONA_PUBLIC_URL === undefined
      ? {}
      : { origin: services.config.PERSONA_PUBLIC_URL },
  );
  app.use(createOpenApiRouter(document));

  const api = express.Router();
  const bodyLimit = services.config.PERSONA_BODY_LIMIT_BYTES;
  api.use(createGenerateRouter(services.pipeline, bodyLimit));
  api.use(createPersonifyRouter(services.pipeline, bodyLimit));
  api.use(createCompletionsRouter(services.pipeline, bodyLimit));
  api.use(createModelsRouter(services));
  app.use(API_PREFIX, api);

  // Browser playground and the browser login route (docs/API.md §1.6, §4.5, §5.3): server-rendered pages.
  const sessionLifetimeMs = services.config.PERSONA_SESSION_TTL_HOURS * 3_600_000;
  const web = createWebSupport(services, new SessionStore(services.database, sessionLifetimeMs));
  app.use(createLandingRouter(web));
  app.use(createPlaygroundRouter(web, services.pipeline));
  app.use(createLoginRouter(web));
  // The remote MCP endpoint and its OAuth authorization server (docs/API.md §4.7).
  app.use(createOAuthRouter(web));
  app.use(createDocsRouter(web, document));

  for (const [name, path] of Object.entries(ENDPOINT_PATHS)) {
    app.all(path, (_request, response) => {
      setErrorStyle(response, name === "completions" ? "completions" : "native");
      throw new ServiceError("method_not_allowed", `${path} accepts POST only`, {
        headers: { Allow: "POST" },
      });
    });
  }
  // Under /api/v1 the clients are completions-style ones (docs/API.md §4.3): they parse this object.
  app.use(API_PREFIX, (request, response) => {
    setErrorStyle(response, "completions");
    throw new ServiceError(
      "route_not_found",
      `no route for ${request.method} ${request.baseUrl}${request.path}; the endpoints are POST ${Object.values(ENDPOINT_PATHS).join(", ")}`,
    );
  });
  app.use((request, _response) => {
    throw new ServiceError("route_not_found", `no route for ${request.method} ${request.path}`);
  });
  app.use(createErrorHandler(services.logger));
  return app;
}
