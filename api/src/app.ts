import { randomUUID } from "node:crypto";
import { API_PREFIX, ENDPOINT_PATHS } from "@persona-reply/shared";
import express, { type Express } from "express";
import { sql } from "kysely";
import { pinoHttp } from "pino-http";
import { createCompletionsRouter } from "./completions/completions-route.js";
import { createGenerateRouter } from "./generate/generate-route.js";
import { createErrorHandler } from "./http/error-handler.js";
import { setErrorStyle } from "./http/error-style.js";
import { ServiceError } from "./http/service-error.js";
import { createPersonifyRouter } from "./personify/personify-route.js";
import type { Services } from "./services.js";

const REQUEST_ID_PATTERN = /^[\w.:-]{1,128}$/u;

/**
 * Builds the express application (no listening; see startServer). Request
 * path per DESIGN.md: parse and validate → authenticate → authorize →
 * persona engine → provider → normalize → chunk → respond.
 */
export function createApp(services: Services): Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("trust proxy", false);

  app.use(
    pinoHttp({
      logger: services.logger,
      genReqId(request, response) {
        const sent = request.headers["x-request-id"];
        const id = typeof sent === "string" && REQUEST_ID_PATTERN.test(sent) ? sent : randomUUID();
        response.setHeader("x-request-id", id);
        return id;
      },
      autoLogging: { ignore: (request) => request.url === "/healthz" },
      serializers: {
        req: (request: { id: unknown; method: string; url: string }) => ({
          id: request.id,
          method: request.method,
          url: request.url,
        }),
        res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
      },
    }),
  );

  app.get("/healthz", async (_request, response) => {
    await sql`select 1`.execute(services.database);
    response.json({ status: "ok" });
  });

  const api = express.Router();
  api.use(createGenerateRouter(services));
  api.use(createPersonifyRouter(services));
  api.use(createCompletionsRouter(services));
  app.use(API_PREFIX, api);

  for (const [name, path] of Object.entries(ENDPOINT_PATHS)) {
    app.all(path, (_request, response) => {
      setErrorStyle(response, name === "completions" ? "completions" : "native");
      throw new ServiceError("method_not_allowed", `${path} accepts POST only`, {
        headers: { Allow: "POST" },
      });
    });
  }
  app.use((request, _response) => {
    throw new ServiceError("route_not_found", `no route for ${request.method} ${request.path}`);
  });
  app.use(createErrorHandler(services.logger, services.config.PERSONA_BODY_LIMIT_BYTES));
  return app;
}
