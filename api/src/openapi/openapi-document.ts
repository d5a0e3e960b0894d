import { API_PREFIX, API_VERSION, CLIENT_VERSION } from "@persona-reply/shared";
import {
  type ContentObject,
  type HeaderObject,
  type InfoObject,
  type OpenAPIObject,
  OpenApiBuilder,
  type ParameterObject,
  type ReferenceObject,
  type RequestBodyObject,
  type SchemaObject,
  type SecurityRequirementObject,
  type SecuritySchemeObject,
  type ServerObject,
  type TagObject,
} from "openapi3-ts/oas31";
import { apiPaths } from "./api-operations.js";
import { browserPaths } from "./browser-operations.js";
import { componentSchemas } from "./component-schemas.js";
import { modelsPaths } from "./models-operations.js";
import { MCP_OAUTH_SCHEME, oauthPaths } from "./oauth-operations.js";
import { servicePaths } from "./service-operations.js";

/** The HTTP methods this service routes. */
export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** A response as this document writes it: headers by name, each a header or a `$ref`. */
export interface DocumentedResponse {
  description: string;
  headers?: Record<string, HeaderObject | ReferenceObject>;
  content?: ContentObject;
}

/** An operation as this document writes it: always an operationId, responses never `$ref`s. */
export interface DocumentedOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, DocumentedResponse>;
  security?: SecurityRequirementObject[];
}

/**
 * The service's OpenAPI 3.1 document, in openapi3-ts's object types, with
 * the parts this document always has made required (what its tests and the
 * response checker read).
 */
export interface OpenApiDocument {
  openapi: string;
  jsonSchemaDialect: string;
  info: InfoObject & { summary: string };
  servers: ServerObject[];
  tags: TagObject[];
  paths: Record<string, Partial<Record<HttpMethod, DocumentedOperation>>>;
  components: {
    schemas: Record<string, SchemaObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
    headers: Record<string, HeaderObject>;
  };
}

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

/** The document's `info` (OpenAPI 3.1 adds `summary`, which openapi3-ts's type lacks). */
const INFO: InfoObject & { summary: string } = {
  title: "Persona Reply API",
  version: API_VERSION,
  summary: "Replies, rewrites and completions in a custom persona's voice.",
  description: DESCRIPTION,
};

/**
 * Builds the OpenAPI 3.1 document of the service: the three API endpoints
 * (docs/API.md §4.1–4.3), the browser login route (§4.5), the playground, and the
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
  // OpenAPI 3.1's jsonSchemaDialect is missing from openapi3-ts's OpenAPIObject type.
  const base: OpenAPIObject & { jsonSchemaDialect: string } = {
    openapi: "3.1.1",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: INFO,
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
          "The three operations, billed and rate limited, and the models list of completions-style clients.",
      },
      {
        name: "Browser login",
        description: "The route the tool and the plugin open in a browser.",
      },
      {
        name: "Playground",
        description: "Server-rendered pages: sign-in, keys, sessions, chat.",
      },
      {
        name: "Remote MCP",
        description:
          "The remote MCP endpoint and the OAuth 2.1 authorization server that issues its tokens.",
      },
      {
        name: "Operations",
        description: "Health, metrics, this reference, the landing page and the site icon.",
      },
    ],
    paths: {},
    components: { schemas: {}, securitySchemes: {}, headers: {} },
  };
  const builder = OpenApiBuilder.create(base);
  const paths = {
    ...apiPaths(),
    ...modelsPaths(),
    ...browserPaths(),
    ...oauthPaths(),
    ...servicePaths(),
  };
  for (const [path, item] of Object.entries(paths)) builder.addPath(path, item);
  for (const [name, schema] of Object.entries(componentSchemas())) builder.addSchema(name, schema);
  for (const [name, header] of Object.entries(HEADERS)) builder.addHeader(name, header);
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    builder.addSecurityScheme(name, scheme);
  }
  return builder.getSpec() as unknown as OpenApiDocument;
}

/** The ways to authenticate (docs/API.md §5), under `#/components/securitySchemes`. */
const SECURITY_SCHEMES: Record<string, SecuritySchemeObject> = {
  [MCP_OAUTH_SCHEME]: {
    type: "oauth2",
    description:
      "OAuth 2.1 for `/mcp`: authorization code with PKCE S256, dynamic registration at /register; access tokens bound to `/mcp`, one account and one persona.",
    flows: {
      authorizationCode: {
        authorizationUrl: "/authorize",
        tokenUrl: "/token",
        refreshUrl: "/token",
        scopes: {},
      },
    },
  },
  ApiKeyHeader: {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "The API key (`prk_…`) in the x-api-key header.",
  },
  BearerAuth: {
    type: "http",
    scheme: "bearer",
    description: "The API key as `Authorization: Bearer <API_KEY>`.",
  },
  X402Payment: {
    type: "apiKey",
    in: "header",
    name: "PAYMENT-SIGNATURE",
    description:
      "Self-serve personas only: without a key the first request gets 402 with the PaymentRequired object; retry with a signed x402 payment in this header.",
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
      "The metrics token the operator configured, as a bearer token; without one configured, loopback clients only.",
  },
};
