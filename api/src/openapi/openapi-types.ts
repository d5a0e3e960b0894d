/**
 * The parts of the OpenAPI 3.1 object model (https://spec.openapis.org/oas/v3.1.0)
 * this service's document uses. Schemas are JSON Schema 2020-12 objects.
 */

/** A JSON Schema 2020-12 object (as zod's `toJSONSchema` writes it), or a `$ref`. */
export type JsonSchema = Record<string, unknown>;

/** A header of a response. */
export interface HeaderObject {
  description: string;
  schema: JsonSchema;
  required?: boolean;
}

/** A header, or a reference to `#/components/headers/…`. */
export type HeaderOrReference = HeaderObject | { $ref: string };

/** One media type of a body. */
export interface MediaTypeObject {
  schema: JsonSchema;
  example?: unknown;
}

/** A response of an operation. */
export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderOrReference>;
  content?: Record<string, MediaTypeObject>;
}

/** A parameter (query, path or header). */
export interface ParameterObject {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  description: string;
  required: boolean;
  schema: JsonSchema;
}

/** A request body. */
export interface RequestBodyObject {
  description?: string;
  required: boolean;
  content: Record<string, MediaTypeObject>;
}

/** A security requirement: scheme names to scopes (always empty here). */
export type SecurityRequirement = Record<string, string[]>;

/** One operation (method on a path). */
export interface OperationObject {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject>;
  security?: SecurityRequirement[];
}

/** The HTTP methods this service routes. */
export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** A path item: operations by method. */
export type PathItemObject = Partial<Record<HttpMethod, OperationObject>>;

/** A security scheme (`apiKey` in a header, or HTTP `bearer`). */
export type SecuritySchemeObject =
  | { type: "apiKey"; in: "header" | "cookie"; name: string; description: string }
  | { type: "http"; scheme: "bearer"; description: string };

/** The whole OpenAPI 3.1 document. */
export interface OpenApiDocument {
  openapi: "3.1.1";
  jsonSchemaDialect: string;
  info: { title: string; version: string; summary: string; description: string };
  servers: Array<{ url: string; description: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, SecuritySchemeObject>;
    headers: Record<string, HeaderObject>;
  };
}
