import type {
  OperationObject,
  PathItemObject,
  ResponseObject,
  ResponsesObject,
} from "openapi3-ts/oas31";
import { HEADER_REFERENCES } from "./error-responses.js";

/** The name of the OAuth 2.1 security scheme of `/mcp` under `#/components/securitySchemes`. */
export const MCP_OAUTH_SCHEME = "McpOAuth";

const headers = { "x-request-id": HEADER_REFERENCES.requestId };

function json(description: string): ResponseObject {
  return { description, headers, content: { "application/json": { schema: { type: "object" } } } };
}

const OAUTH_ERROR = json(
  "An OAuth error object `{ error, error_description }` (RFC 6749): `invalid_request`, `invalid_client`, `invalid_grant`, `invalid_target`, `unsupported_grant_type`, `invalid_client_metadata`.",
);
const FOREIGN_HOST = json(
  "On a loopback address, a Host (or Origin) that is not a loopback name, an IP address or a configured name (DNS rebinding).",
);
const TOO_MANY = json("More requests from this address than the endpoint allows (`Retry-After`).");

function form(fields: Record<string, string>, required: string[]) {
  return {
    required: true,
    content: {
      "application/x-www-form-urlencoded": {
        schema: {
          type: "object" as const,
          required,
          properties: Object.fromEntries(
            Object.entries(fields).map(([name, description]) => [
              name,
              { type: "string" as const, description },
            ]),
          ),
        },
      },
    },
  };
}

function operation(
  operationId: string,
  summary: string,
  description: string,
  extra: Omit<OperationObject, "responses"> & { responses: ResponsesObject },
): OperationObject {
  return { operationId, tags: ["Remote MCP"], summary, description, security: [], ...extra };
}

const PROTECTED_RESOURCE = operation(
  "oauthProtectedResource",
  "Protected-resource metadata",
  "RFC 9728 metadata of `/mcp`: its `resource` URL and the authorization server (this service). The 401 of `/mcp` points here in `WWW-Authenticate: Bearer resource_metadata=…`; served at the root and under the resource's path.",
  { responses: { "200": json("The metadata."), "403": FOREIGN_HOST } },
);

const AUTHORIZE = {
  parameters: [
    ["response_type", "`code`."],
    [
      "client_id",
      "A client registered at /register, or the https URL of the client's metadata document (fetched and checked: a document that cannot be used is a 400 `invalid_client` saying why).",
    ],
    [
      "redirect_uri",
      "One of the client's redirect URIs; on loopback any port (RFC 8252). Optional when it registered one.",
    ],
    ["code_challenge", "PKCE S256 challenge (RFC 7636)."],
    ["code_challenge_method", "`S256`; nothing else is accepted."],
    ["state", "Returned unchanged on the redirect."],
    ["resource", "RFC 8707: this service's `/mcp` URL; any other is `invalid_target`."],
  ].map(([name = "", description = ""]) => ({
    name,
    in: "query" as const,
    required: !["redirect_uri", "state", "resource"].includes(name),
    description,
    schema: { type: "string" as const },
  })),
  responses: {
    "302": {
      description:
        "To the consent page (`/oauth/consent`), or to the redirect URI with `error` (e.g. `invalid_target`, `invalid_request`) and `state`.",
      headers,
    },
    "400": json(
      "Unknown client, a client metadata document that cannot be used (`invalid_client`), or a redirect URI the client did not register (`invalid_request`): answered here, never redirected.",
    ),
    "403": FOREIGN_HOST,
    "429": TOO_MANY,
  },
};

/** The remote MCP endpoint and its OAuth 2.1 authorization server (docs/API.md §4.7). */
export function oauthPaths(): Record<string, PathItemObject> {
  return {
    "/mcp": {
      post: {
        operationId: "remoteMcp",
        tags: ["Remote MCP"],
        summary: "Remote MCP endpoint (Streamable HTTP)",
        description:
          "The MCP Streamable HTTP transport, stateless, with the `generate` and `personify` tools of persona-mcp (same schemas and error texts). Each tool call is billed, rate limited and recorded as an API key's call, for the account and persona the access token was approved for. Other methods answer 405.",
        security: [{ [MCP_OAUTH_SCHEME]: [] }],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { type: "object" } } },
        },
        responses: {
          "200": {
            description: "A JSON-RPC response, as JSON or as one server-sent event.",
            headers,
            content: {
              "application/json": { schema: { type: "object" } },
              "text/event-stream": { schema: { type: "string" } },
            },
          },
          "401": {
            description:
              'No token, or one that is unknown, revoked, expired or bound to another resource: `WWW-Authenticate: Bearer error=…, resource_metadata="…/.well-known/oauth-protected-resource/mcp"`.',
            headers,
            content: { "application/json": { schema: { type: "object" } } },
          },
          "403": FOREIGN_HOST,
          "413": json("A body over 4 MiB."),
        },
      },
    },
    "/.well-known/oauth-protected-resource": { get: PROTECTED_RESOURCE },
    "/.well-known/oauth-protected-resource/mcp": {
      get: { ...PROTECTED_RESOURCE, operationId: "oauthProtectedResourceMcp" },
    },
    "/.well-known/oauth-authorization-server": {
      get: operation(
        "oauthAuthorizationServer",
        "Authorization-server metadata",
        "RFC 8414 metadata: the authorize, token, registration and revocation endpoints, `code` only, PKCE `S256` only, and `client_id_metadata_document_supported: true` (unless the operator turned URL client IDs off): a `client_id` may be the https URL of the client's metadata document.",
        { responses: { "200": json("The metadata."), "403": FOREIGN_HOST } },
      ),
    },
    "/authorize": {
      get: operation(
        "oauthAuthorize",
        "Authorization endpoint",
        "Checks the request and sends the browser to the consent page, which signs the person in first (the playground's e-mail sign-in).",
        AUTHORIZE,
      ),
      post: operation(
        "oauthAuthorizePost",
        "Authorization endpoint (form post)",
        "The same as GET, with the parameters in a form body.",
        AUTHORIZE,
      ),
    },
    "/token": {
      post: operation(
        "oauthToken",
        "Token endpoint",
        "`authorization_code` (with the PKCE `code_verifier`; a code works once, and a second use revokes what the first issued) or `refresh_token` (rotated: each refresh returns a new refresh token, and a spent one used again revokes every token of its grant). Access tokens live one hour and are bound to `/mcp`.",
        {
          requestBody: form(
            {
              grant_type: "`authorization_code` or `refresh_token`.",
              client_id: "The registered client, or its metadata document's URL.",
              code: "The authorization code (authorization_code).",
              code_verifier: "The PKCE verifier (authorization_code).",
              redirect_uri: "The authorization request's redirect URI (authorization_code).",
              refresh_token: "The refresh token (refresh_token).",
              resource: "RFC 8707: this service's `/mcp` URL.",
            },
            ["grant_type", "client_id"],
          ),
          responses: {
            "200": json(
              '`{ access_token, token_type: "Bearer", expires_in, refresh_token }` (`Cache-Control: no-store`).',
            ),
            "400": OAUTH_ERROR,
            "403": FOREIGN_HOST,
            "429": TOO_MANY,
          },
        },
      ),
    },
    "/register": {
      post: operation(
        "oauthRegister",
        "Dynamic client registration",
        "RFC 7591. Every client is public (`token_endpoint_auth_method: none`, no secret); redirect URIs must be https, or http on a loopback host.",
        {
          requestBody: {
            required: true,
            content: { "application/json": { schema: { type: "object" } } },
          },
          responses: {
            "201": json("The client information, with its `client_id`."),
            "400": OAUTH_ERROR,
            "403": FOREIGN_HOST,
            "429": TOO_MANY,
          },
        },
      ),
    },
    "/revoke": {
      post: operation(
        "oauthRevoke",
        "Token revocation",
        "RFC 7009: revoking an access or refresh token revokes its grant, so every token of it stops working (on every instance within a second).",
        {
          requestBody: form({ token: "The token.", client_id: "The client it was issued to." }, [
            "token",
            "client_id",
          ]),
          responses: {
            "200": json("Revoked, or nothing to revoke."),
            "400": OAUTH_ERROR,
            "403": FOREIGN_HOST,
            "429": TOO_MANY,
          },
        },
      ),
    },
  };
}
