import { Router } from "express";
import { sendPage } from "../pages/layout.js";
import { createPageErrorHandler } from "../pages/page-errors.js";
import type { WebSupport } from "../pages/web-support.js";
import type { OpenApiDocument } from "./openapi-document.js";
import {
  loadRedocBundle,
  REFERENCE_START_SCRIPT,
  referenceBody,
  sendScript,
  withReferenceWorkers,
} from "./reference-page.js";
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
 * `GET /docs`: the document at {@link OPENAPI_PATH} rendered by Redoc in the
 * site's layout (header, security headers): a sidebar of every operation,
 * search, request and response samples. Redoc's bundle and start script are
 * served from this origin under `/docs/assets/` (read from node_modules at
 * start-up), so the page works offline and under `script-src 'self'`.
 */
export function createDocsRouter(web: WebSupport): Router {
  const router = Router();
  const bundle = loadRedocBundle();
  const body = referenceBody(OPENAPI_PATH, bundle);
  router.get(new URL(bundle.url, "http://localhost").pathname, sendScript(bundle));
  router.get(
    new URL(REFERENCE_START_SCRIPT.url, "http://localhost").pathname,
    sendScript(REFERENCE_START_SCRIPT),
  );
  router.get(DOCS_PATH, ...web.page, (request, response) => {
    const policy = response.getHeader("Content-Security-Policy");
    if (typeof policy === "string") {
      response.setHeader("Content-Security-Policy", withReferenceWorkers(policy));
    }
    sendPage(request, response, { title: "API reference", body });
  });
  // A page's refusals (the Host check of web.page) are pages too.
  router.use(createPageErrorHandler(web.services.logger));
  return router;
}
