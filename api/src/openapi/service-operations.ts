import { API_PREFIX } from "@persona-reply/shared";
import type { PathItemObject } from "openapi3-ts/oas31";
import { METRICS_PATH } from "../metrics/metrics-route.js";
import { FAVICON_PATH } from "../pages/favicon.js";
import { SITE_STYLE_PATH } from "../pages/site-style.js";
import { errorResponses, HEADER_REFERENCES } from "./error-responses.js";
import { REFERENCE_ASSETS_PATH } from "./reference-paths.js";

/** Where the OpenAPI document is served. */
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

/** Where the same document is served as YAML. */
export const OPENAPI_YAML_PATH = `${API_PREFIX}/openapi.yaml`;

/** Where the readable API reference is served. */
export const DOCS_PATH = "/docs";

/** Path of the health check. */
export const HEALTH_PATH = "/healthz";

/** The readiness route (health/health-routes.ts). */
export const READINESS_PATH = "/readyz";

const requestIdOnly = { "x-request-id": HEADER_REFERENCES.requestId };

/** A script of the reference page, as an operation. */
function referenceScript(operationId: string, summary: string): PathItemObject {
  return {
    get: {
      operationId,
      tags: ["Operations"],
      summary,
      description:
        "A static script of /docs, served by the service (no CDN). Gzip-compressed when accepted; the page links it with `?v=` and its content hash, a URL cached for a year.",
      security: [],
      parameters: [
        {
          name: "v",
          in: "query",
          required: false,
          description: "The script's content hash (cache busting).",
          schema: { type: "string" },
        },
      ],
      responses: {
        "200": {
          description: "The script.",
          headers: requestIdOnly,
          content: { "text/javascript": { schema: { type: "string" } } },
        },
      },
    },
  };
}

/** The operational routes: health, metrics, this document and its reference page, the landing page and the icon. */
export function servicePaths(): Record<string, PathItemObject> {
  return {
    "/": {
      get: {
        operationId: "landingPage",
        tags: ["Operations"],
        summary: "Landing page",
        description:
          "What the service is, its API base URL, and links to the API reference, the playground, the keys and sign-in.",
        security: [],
        responses: {
          "200": {
            description: "The landing page.",
            headers: requestIdOnly,
            content: { "text/html": { schema: { type: "string" } } },
          },
        },
      },
    },
    [FAVICON_PATH]: {
      get: {
        operationId: "favicon",
        tags: ["Operations"],
        summary: "Site icon",
        description: "The icon every page links: an ICO holding a 32×32 PNG. Cached for a day.",
        security: [],
        responses: {
          "200": {
            description: "The icon.",
            headers: requestIdOnly,
            content: { "image/x-icon": { schema: { type: "string", description: "ICO bytes." } } },
          },
        },
      },
    },
    [SITE_STYLE_PATH]: {
      get: {
        operationId: "siteStylesheet",
        tags: ["Operations"],
        summary: "Site stylesheet",
        description:
          "The one stylesheet of every page (light and dark, phone to desktop). Pages link it with `?v=` and its content hash; that URL is cached for a year, others for five minutes.",
        security: [],
        parameters: [
          {
            name: "v",
            in: "query",
            required: false,
            description: "The stylesheet's content hash (cache busting).",
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": {
            description: "The stylesheet.",
            headers: requestIdOnly,
            content: { "text/css": { schema: { type: "string" } } },
          },
        },
      },
    },
    [HEALTH_PATH]: {
      get: {
        operationId: "health",
        tags: ["Operations"],
        summary: "Liveness",
        description:
          "Answers 200 whenever the process answers, touching nothing else: a liveness check (restart the process when it fails). Not logged.",
        security: [],
        responses: {
          "200": {
            description: "The process answers.",
            headers: requestIdOnly,
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/HealthResponse" } },
            },
          },
        },
      },
    },
    [READINESS_PATH]: {
      get: {
        operationId: "readiness",
        tags: ["Operations"],
        summary: "Readiness",
        description:
          "Answers 200 when the database takes a read of the schema and a write, and Redis (when configured) answers, within the readiness deadline the operator configured; otherwise 503 with `Retry-After` and the failing part named. A readiness check for load balancers (take the instance out of rotation while it fails). Never calls a model. Not logged.",
        security: [],
        responses: {
          "200": {
            description: "Ready to serve.",
            headers: requestIdOnly,
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/Readiness" } },
            },
          },
          "503": {
            description: "Not ready: `checks` names what fails.",
            headers: { ...requestIdOnly, "Retry-After": HEADER_REFERENCES.retryAfter },
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/Readiness" } },
            },
          },
        },
      },
    },
    [METRICS_PATH]: {
      get: {
        operationId: "metrics",
        tags: ["Operations"],
        summary: "Prometheus metrics",
        description:
          "The Prometheus text exposition format: requests by route and status, latency histograms, provider latency and errors by provider, rate-limit and balance refusals, charges, and process metrics. When the operator configured a metrics token, send it as `Authorization: Bearer …`; without one only loopback clients are served, under a loopback `Host` (localhost, an IP address) or a host name the operator allowed.",
        security: [{ MetricsToken: [] }, {}],
        responses: {
          "200": {
            description: "The metrics.",
            headers: requestIdOnly,
            content: {
              "text/plain": {
                schema: { type: "string", description: "Prometheus text format 0.0.4." },
              },
            },
          },
          ...errorResponses("json", [
            "metrics_token_required",
            "metrics_loopback_only",
            "host_not_allowed",
          ]),
        },
      },
    },
    [OPENAPI_PATH]: {
      get: {
        operationId: "openApiDocument",
        tags: ["Operations"],
        summary: "This OpenAPI document",
        description:
          "The OpenAPI 3.1 description of every route, generated from the zod contract of @persona-reply/shared at start-up. Readable at /docs.",
        security: [],
        responses: {
          "200": {
            description: "The OpenAPI 3.1 document.",
            headers: requestIdOnly,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["openapi", "info", "paths", "components"],
                  properties: { openapi: { type: "string", pattern: "^3\\.1\\." } },
                },
              },
            },
          },
        },
      },
    },
    [OPENAPI_YAML_PATH]: {
      get: {
        operationId: "openApiDocumentYaml",
        tags: ["Operations"],
        summary: "This OpenAPI document as YAML",
        description: `The document of ${OPENAPI_PATH}, the same content written as YAML (for tools and readers that prefer it).`,
        security: [],
        responses: {
          "200": {
            description: "The OpenAPI 3.1 document, YAML.",
            headers: requestIdOnly,
            content: { "application/yaml": { schema: { type: "string" } } },
          },
        },
      },
    },
    [`${REFERENCE_ASSETS_PATH}/redoc.standalone.js`]: referenceScript(
      "redocBundle",
      "Reference renderer (Redoc's standalone bundle)",
    ),
    [`${REFERENCE_ASSETS_PATH}/reference.js`]: referenceScript(
      "referenceStartScript",
      "Reference page start script",
    ),
    [DOCS_PATH]: {
      get: {
        operationId: "docsPage",
        tags: ["Operations"],
        summary: "API reference page",
        description:
          "This document rendered by Redoc (served by the service itself, no CDN): a sidebar of every operation, search, the request and response samples of each, every error response with its body format and examples. Without JavaScript: the document's links and a summary of every operation, drawn on the server.",
        security: [],
        responses: {
          "200": {
            description: "The reference page.",
            headers: requestIdOnly,
            content: { "text/html": { schema: { type: "string" } } },
          },
        },
      },
    },
  };
}
