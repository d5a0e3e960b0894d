import { API_PREFIX, API_VERSION, CLIENT_VERSION } from "@persona-reply/shared";
import { apiPaths } from "./api-operations.js";
import { browserPaths } from "./browser-operations.js";
import { componentSchemas } from "./component-schemas.js";
import { modelsPaths } from "./models-operations.js";
import type { HeaderObject, OpenApiDocument } from "./openapi-types.js";
import { servicePaths } from "./service-operations.js";

/** Options of {@link buildOpenApiDocument}. */
export interface OpenApiOptions {
  /**
   * The site origin for `servers`, e.g. `https://persona.example.com`
   * (`PERSONA_PUBLIC_URL`); a relative server `/` when omitted, so tools
   * resolve paths against wherever they fetched the document.
   */
  origin?: string;
}

const HEADERS: Record<string, HeaderObject> = {
  RequestId: {
    description:
      "The request's ID (yours when you sent a valid x-request-id, else a UUID). Every log line of the request carries it: quote it when asking for help.",
    schema: { type: "string" },
    required: true,
  },
  RateLimitPolicy: {
    description:
      'API-key requests: the key\'s windows (IETF RateLimit draft, structured fields), e.g. `"minute";q=25;w=60, "hour";q=100;w=3600, "day";q=500;w=86400`.',
    schema: { type: "string" },
  },
  RateLimit: {
    description: 'API-key requests: what is left of each window, e.g. `"minute";r=24;t=60, …`.',
    schema: { type: "string" },
  },
  RetryAfter: {
    description: "Seconds to wait before retrying (429 of a full rate-limit window).",
    schema: { type: "string", pattern: "^\\d+$" },
  },
  Allow: { description: "The methods the path accepts: POST.", schema: { type: "string" } },
  PaymentRequired: {
    description: "402: the PaymentRequired object, base64-encoded JSON (what x402 clients read).",
    schema: { type: "string" },
  },
  PaymentResponse: {
    description: "x402 requests: the facilitator's settlement, base64-encoded JSON.",
    schema: { type: "string" },
  },
  WwwAuthenticate: { description: "How to authenticate: Bearer.", schema: { type: "string" } },
  PersonaVersion: {
    description:
      "The persona version that answered (1, 2, 3 …): personas are refined in versions and each usage row names the one that served it. The body is unchanged.",
    schema: { type: "integer", minimum: 1 },
  },
};

const DESCRIPTION = `A hosted API that generates chat replies in a custom persona's voice, rewrites text into that voice, and offers a completions-style endpoint (spec version ${API_VERSION}; client library ${CLIENT_VERSION}). All API paths start with ${API_PREFIX}; bodies are JSON.

Authentication: one API key header per request, \`x-api-key: <API_KEY>\` or \`Authorization: Bearer <API_KEY>\` (completions-style clients use Bearer). On self-serve personas a request without a key may receive a 402 x402 payment challenge instead.

Errors: /generate and /personify answer validation and authentication errors as plain text and quota and server errors as JSON — check the Content-Type before parsing; /completions always answers the completions error object. Unknown routes answer 404 \`{ "error": { "type": "route_not_found", "message" } }\`, and under /api/v1 the completions error object (\`type: "invalid_request_error"\`), which completions-style clients parse. Every response carries \`x-request-id\`.`;

/**
 * Builds the OpenAPI 3.1 document of the service: the three API endpoints
 * (spec §4.1–4.3), the browser login route (§4.5), the playground, and the
 * operational routes (/healthz, /metrics, this document, /docs). Request
 * and response schemas come from the zod contract of `@persona-reply/shared`
 * through zod 4's JSON Schema output; error statuses and formats come from
 * the service's error table. Pure: no I/O.
 *
 * @example
 * const document = buildOpenApiDocument({ origin: "https://persona.example.com" });
 * document.paths["/api/v1/generate"]?.post?.responses["422"]; // plain-text validation error
 */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  return {
    openapi: "3.1.1",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Persona Reply API",
      version: API_VERSION,
      summary: "Replies, rewrites and completions in a custom persona's voice.",
      description: DESCRIPTION,
    },
    servers: [
      {
        url: options.origin?.replace(/\/+$/u, "") || "/",
        description:
          "The site origin ({base_url}). Completions-style clients use {base_url}/api/v1 as their base URL; the client library takes the origin alone.",
      },
    ],
    tags: [
      {
        name: "API",
        description:
          "The three operations (spec §4.1–4.3), billed and rate limited, and the models list of completions-style clients.",
      },
      {
        name: "Browser login",
        description: "The route the tool and the plugin open in a browser (spec §4.5).",
      },
      {
        name: "Playground",
        description: "Server-rendered pages: sign-in, keys, sessions, chat (spec §1.6, §5.3).",
      },
      {
        name: "Operations",
        description: "Health, metrics, this reference, the landing page and the site icon.",
      },
    ],
    paths: { ...apiPaths(), ...modelsPaths(), ...browserPaths(), ...servicePaths() },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        ApiKeyHeader: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description: "The API key (`prk_…`) in the x-api-key header (spec §5.1).",
        },
        BearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "The API key as `Authorization: Bearer <API_KEY>` (spec §5.1–5.2).",
        },
        X402Payment: {
          type: "apiKey",
          in: "header",
          name: "PAYMENT-SIGNATURE",
          description:
            "Self-serve personas only (spec §5.6): without a key the first request gets 402 with the PaymentRequired object; retry with a signed x402 payment in this header.",
        },
        PlaygroundSession: {
          type: "apiKey",
          in: "cookie",
          name: "persona_session",
          description:
            "The playground's session cookie after e-mail sign-in (`__Host-persona_session` behind HTTPS).",
        },
        MetricsToken: {
          type: "http",
          scheme: "bearer",
          description:
            "PERSONA_METRICS_TOKEN as a bearer token; without one configured, loopback clients only.",
        },
      },
      headers: HEADERS,
    },
  };
}
