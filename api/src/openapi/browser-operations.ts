import type {
  OperationObject,
  ParameterObject,
  PathItemObject,
  ResponseObject,
  SchemaObject,
} from "openapi3-ts/oas31";
import {
  DOCUMENTED_PAGES,
  type DocumentedPage,
  type Field,
  SIGNED_OUT_GET,
} from "./documented-pages.js";
import { HEADER_REFERENCES } from "./error-responses.js";

const CSRF_FIELD: Field = {
  name: "_csrf",
  required: true,
  description:
    "The CSRF token of the page that holds the form (signed double-submit, bound to the session).",
};

const string = (extra: SchemaObject = {}): SchemaObject => ({ type: "string", ...extra });

function pageResponse(status: string, description: string): ResponseObject {
  const headers = { "x-request-id": HEADER_REFERENCES.requestId };
  if (status === "303") {
    return {
      description,
      headers: {
        ...headers,
        Location: { description: "Where the browser goes next.", schema: string() },
      },
    };
  }
  return { description, headers, content: { "text/html": { schema: string() } } };
}

function toOperation(route: DocumentedPage): OperationObject {
  const parameters: ParameterObject[] = [
    ...(route.pathParameters ?? []).map((field) => ({
      name: field.name,
      in: "path" as const,
      required: true,
      description: field.description,
      schema: field.schema ?? string(),
    })),
    ...(route.query ?? []).map((field) => ({
      name: field.name,
      in: "query" as const,
      required: field.required === true,
      description: field.description,
      schema: field.schema ?? string(),
    })),
  ];
  const form = route.method === "post" ? [...(route.form ?? []), CSRF_FIELD] : [];
  const operation: OperationObject = {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    security: route.session ? [{ PlaygroundSession: [] }] : [],
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, text]) => [status, pageResponse(status, text)]),
    ),
  };
  if (parameters.length > 0) operation.parameters = parameters;
  if (form.length > 0) {
    operation.requestBody = {
      required: true,
      content: {
        "application/x-www-form-urlencoded": {
          schema: {
            type: "object",
            properties: Object.fromEntries(
              form.map((field) => [
                field.name,
                { ...string(), ...field.schema, description: field.description },
              ]),
            ),
            required: form.filter((field) => field.required === true).map((field) => field.name),
          },
        },
      },
    };
  }
  return operation;
}

const SCRIPTS = [
  ["/playground/assets/keys.js", "keysScript", "Script of the keys page (Copy button)."],
  ["/playground/assets/chat.js", "chatScript", "Script of the playground page."],
] as const;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function playgroundCall(kind: "generate" | "personify"): OperationObject {
  const generate = kind === "generate";
  const errors: Record<string, string> = {
    "400": generate ? "Malformed JSON." : "Malformed JSON or invalid body.",
    "401": "Not signed in.",
    "403": generate
      ? "The CSRF token is missing or wrong, or the account is not active."
      : "The CSRF token is missing or wrong, the account is not active, or the persona has no /personify access.",
    "404": "Not a persona of the signed-in account.",
    "413": "The body is too large.",
    "429": "Playground limits (25/minute, 100/hour, 500/day per account) or the balance.",
    "500": "Unexpected server error.",
    "502": "The model provider failed.",
    "504": "The model provider did not answer in time.",
  };
  if (generate) errors["422"] = "Invalid body.";
  return {
    operationId: generate ? "playgroundGenerate" : "playgroundPersonify",
    tags: ["Playground"],
    summary: generate
      ? "Playground: /generate for the session"
      : "Playground: /personify for the session",
    description: `The playground page's call: the body of /api/v1/${kind}, answered with its body, for the signed-in session's account (billed to its balance; no API key reaches the page). Needs the CSRF token in the x-csrf-token header. Errors are { error: { type, message } }.`,
    security: [{ PlaygroundSession: [] }],
    parameters: [
      {
        name: "x-csrf-token",
        in: "header",
        required: true,
        description: "The CSRF token of the playground page.",
        schema: string(),
      },
    ],
    requestBody: {
      required: true,
      content: {
        "application/json": { schema: ref(generate ? "GenerateRequest" : "PersonifyRequest") },
      },
    },
    responses: {
      "200": {
        description: `As /api/v1/${kind} (without rateLimits).`,
        headers: { "x-request-id": HEADER_REFERENCES.requestId },
        content: {
          "application/json": { schema: ref(generate ? "GenerateResponse" : "PersonifyResponse") },
        },
      },
      ...Object.fromEntries(
        Object.entries(errors)
          .sort(([left], [right]) => left.localeCompare(right))
          .map(([status, description]) => [
            status,
            {
              description,
              headers: { "x-request-id": HEADER_REFERENCES.requestId },
              content: { "application/json": { schema: ref("ErrorBody") } },
            },
          ]),
      ),
    },
  };
}

/**
 * The server-rendered routes: the browser login route (docs/API.md §4.5) and the
 * playground (docs/API.md §1.6, §5.3). Pages answer HTML (errors as error pages);
 * the playground's two JSON calls reuse the contract's schemas.
 */
export function browserPaths(): Record<string, PathItemObject> {
  const paths: Record<string, PathItemObject> = {};
  for (const route of DOCUMENTED_PAGES) {
    const item = paths[route.path] ?? {};
    item[route.method] = toOperation(route);
    paths[route.path] = item;
  }
  for (const [path, operationId, description] of SCRIPTS) {
    paths[path] = {
      get: {
        operationId,
        tags: ["Playground"],
        summary: description,
        description:
          "A static script (Content-Security-Policy allows scripts of this origin only).",
        security: [],
        responses: {
          "200": {
            description: "The script.",
            headers: { "x-request-id": HEADER_REFERENCES.requestId },
            content: { "text/javascript": { schema: string() } },
          },
        },
      },
    };
  }
  paths["/usage.csv"] = {
    get: {
      operationId: "usageCsv",
      tags: ["Playground"],
      summary: "Usage as CSV",
      description:
        "The figures of the usage page as CSV (RFC 4180, CRLF line ends, header line first): day, persona_id, persona_name, endpoint, requests, served, input_tokens, output_tokens, spend (decimal), currency; one line per UTC day, persona and endpoint with any request in the last 30 days, oldest first.",
      security: [{ PlaygroundSession: [] }],
      responses: {
        "200": {
          description: "The CSV file (Content-Disposition: attachment).",
          headers: { "x-request-id": HEADER_REFERENCES.requestId },
          content: { "text/csv": { schema: string() } },
        },
        "303": pageResponse("303", SIGNED_OUT_GET),
      },
    },
  };
  paths["/playground/api/generate"] = { post: playgroundCall("generate") };
  paths["/playground/api/personify"] = { post: playgroundCall("personify") };
  return paths;
}
