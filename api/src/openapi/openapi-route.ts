import { Router } from "express";
import { sendPage } from "../pages/layout.js";
import { createPageErrorHandler } from "../pages/page-errors.js";
import type { WebSupport } from "../pages/web-support.js";
import { renderReference } from "./docs-page.js";
import type { OpenApiDocument } from "./openapi-types.js";
import { DOCS_PATH, OPENAPI_PATH } from "./service-operations.js";

/**
 * `GET /api/v1/openapi.json`: the OpenAPI 3.1 document, built once at
 * start-up. It is public (CORS `*`), so API tools on other origins can load it.
 */
export function createOpenApiRouter(document: OpenApiDocument): Router {
  const router = Router();
  const json = JSON.stringify(document);
  router.get(OPENAPI_PATH, (_request, response) => {
    response.setHeader("Access-Control-Allow-Origin", "*");
    response.setHeader("Cache-Control", "no-cache");
    response.type("application/json; charset=utf-8").send(json);
  });
  return router;
}

/**
 * `GET /docs`: the document rendered as a readable reference page in the
 * playground's style (same layout, security headers and navigation).
 */
export function createDocsRouter(web: WebSupport, document: OpenApiDocument): Router {
  const router = Router();
  const body = renderReference(document, OPENAPI_PATH);
  router.get(DOCS_PATH, ...web.page, (request, response) => {
    sendPage(request, response, { title: "API reference", body });
  });
  // A page's refusals (the Host check of web.page) are pages too.
  router.use(createPageErrorHandler(web.services.logger));
  return router;
}
