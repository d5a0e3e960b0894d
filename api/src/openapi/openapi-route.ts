import { Router } from "express";
import { stringify } from "yaml";
import { sendPage } from "../pages/layout.js";
import { createPageErrorHandler } from "../pages/page-errors.js";
import { pageLocals, type WebSupport } from "../pages/web-support.js";
import type { OpenApiDocument } from "./openapi-document.js";
import { referenceFallback } from "./reference-fallback.js";
import {
  loadRedocBundle,
  REFERENCE_START_SCRIPT,
  referenceBody,
  sendScript,
  withReferenceWorkers,
} from "./reference-page.js";
import { DOCS_PATH, OPENAPI_PATH, OPENAPI_YAML_PATH } from "./service-operations.js";

/**
 * `GET /api/v1/openapi.json` and `/api/v1/openapi.yaml`: the OpenAPI 3.1
 * document as JSON and as YAML, built once at start-up. They are public
 * (CORS `*`), so API tools on other origins can load them.
 */
export function createOpenApiRouter(document: OpenApiDocument): Router {
  const router = Router();
  const formats = [
    [OPENAPI_PATH, "application/json; charset=utf-8", JSON.stringify(document)],
    // No anchors and aliases for the objects the document shares: every reader
    // sees plain YAML (parsers refuse many aliases as a resource attack).
    [
      OPENAPI_YAML_PATH,
      "application/yaml; charset=utf-8",
      stringify(document, { aliasDuplicateObjects: false }),
    ],
  ] as const;
  for (const [path, type, text] of formats) {
    router.get(path, (_request, response) => {
      response.setHeader("Access-Control-Allow-Origin", "*");
      response.setHeader("Cache-Control", "no-cache");
      response.type(type).send(text);
    });
  }
  return router;
}

/**
 * `GET /docs`: the document at {@link OPENAPI_PATH} rendered by Redoc in the
 * site's layout (header, security headers): a sidebar of every operation,
 * search, request and response samples. Redoc's bundle and start script are
 * served from this origin under `/docs/assets/` (read from node_modules at
 * start-up), so the page works offline and under `script-src 'self'`.
 * Without JavaScript the page shows the document's links and a summary of
 * it drawn on the server ({@link referenceFallback}).
 */
export function createDocsRouter(web: WebSupport, document: OpenApiDocument): Router {
  const router = Router();
  const bundle = loadRedocBundle();
  const links = { json: OPENAPI_PATH, yaml: OPENAPI_YAML_PATH };
  const body = referenceBody(links, bundle, referenceFallback(document, links));
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
    // Signed in, the header's sign-out form needs the CSRF token, as on every page.
    const signedIn = pageLocals(response).session !== undefined;
    sendPage(request, response, {
      title: "API reference",
      body,
      ...(signedIn ? { csrfToken: web.csrfToken(request, response) } : {}),
    });
  });
  // A page's refusals (the Host check of web.page) are pages too.
  router.use(createPageErrorHandler(web.services.logger));
  return router;
}
