import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { HttpMethod, OpenApiDocument } from "../../src/openapi/openapi-document.js";

// ajv-formats is CommonJS with a default export; NodeNext sees the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const DOCUMENT_ID = "urn:persona-reply:openapi";

/** A response as a test received it. */
export interface ReceivedResponse {
  status: number;
  headers: Headers;
  /** The body as text. */
  text: string;
}

/** Escapes a segment of a JSON pointer inside a URI fragment. */
function pointerSegment(segment: string): string {
  return encodeURIComponent(segment.replaceAll("~", "~0").replaceAll("/", "~1"));
}

/**
 * Checks real responses against the OpenAPI document with ajv (JSON Schema
 * 2020-12, formats from ajv-formats): the status must be documented for the
 * operation, the media type must be one the document gives for it, a JSON
 * body must match its schema (components resolved by `$ref` inside the
 * document), and the required headers (`x-request-id`) must be present.
 */
export class OpenApiResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
  }

  /**
   * Lists what is wrong with a response of `method` on the documented path
   * `path` (e.g. `/sessions/{id}/revoke`); an empty list when it conforms.
   */
  problems(method: HttpMethod, path: string, response: ReceivedResponse): string[] {
    const operation = this.document.paths[path]?.[method];
    if (operation === undefined) return [`${method.toUpperCase()} ${path} is not documented`];
    const status = String(response.status);
    const documented = operation.responses[status];
    if (documented === undefined) {
      return [`${method.toUpperCase()} ${path} answered ${status}, which is not documented`];
    }
    const problems: string[] = [];
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const required = "required" in header ? header.required : name === "x-request-id";
      if (required === true && !response.headers.has(name)) problems.push(`header ${name} missing`);
    }
    const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    const content = documented.content ?? {};
    if (Object.keys(content).length === 0) return problems;
    if (content[mediaType] === undefined) {
      problems.push(
        `${status} came as ${mediaType || "no content type"}, documented: ${Object.keys(content).join(", ")}`,
      );
      return problems;
    }
    if (mediaType !== "application/json") return problems;
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [...problems, `${status} body is not JSON: ${response.text.slice(0, 200)}`];
    }
    const pointer = ["paths", path, method, "responses", status, "content", mediaType, "schema"]
      .map(pointerSegment)
      .join("/");
    let validate = this.validators.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
      this.validators.set(pointer, validate);
    }
    if (!validate(body)) {
      problems.push(
        `${status} body does not match the document: ${this.ajv.errorsText(validate.errors)} — ${response.text.slice(0, 300)}`,
      );
    }
    return problems;
  }
}

/** Fetches and keeps what {@link OpenApiResponseChecker.problems} needs. */
export async function receive(response: Response): Promise<ReceivedResponse> {
  return { status: response.status, headers: response.headers, text: await response.text() };
}
