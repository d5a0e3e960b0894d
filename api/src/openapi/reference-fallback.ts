import { html, type SafeHtml } from "../pages/html.js";
import type { DocumentedOperation, HttpMethod, OpenApiDocument } from "./openapi-document.js";

/** Where the document is served, in each of its formats. */
export interface DocumentLinks {
  /** `/api/v1/openapi.json` */
  json: string;
  /** `/api/v1/openapi.yaml` */
  yaml: string;
}

/**
 * A description's text with its `code spans` as `<code>` (the document's
 * descriptions use no other Markdown); everything else escaped.
 */
function withCode(text: string): SafeHtml[] {
  return text
    .split("`")
    .map((part, index) => (index % 2 === 1 ? html`<code>${part}</code>` : html`${part}`));
}

/** A description's paragraphs (blank-line separated), each with its code spans. */
function paragraphs(text: string): SafeHtml[] {
  return text
    .split(/\n{2,}/u)
    .filter((paragraph) => paragraph.trim() !== "")
    .map((paragraph) => html`<p>${withCode(paragraph)}</p>`);
}

/** The operations of one tag, in the document's order, with their method and path. */
function operationsOf(
  document: OpenApiDocument,
  tag: string,
): Array<{ method: HttpMethod; path: string; operation: DocumentedOperation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      operation?.tags.includes(tag) === true
        ? [{ method: method as HttpMethod, path, operation }]
        : [],
    ),
  );
}

/** The `$ref` name of an operation's JSON request body, e.g. `GenerateRequest`, or undefined. */
function requestSchemaName(operation: DocumentedOperation): string | undefined {
  const schema = operation.requestBody?.content["application/json"]?.schema;
  const reference = schema !== undefined && "$ref" in schema ? schema.$ref : undefined;
  return reference?.split("/").at(-1);
}

/**
 * The reference without JavaScript: the document's links (JSON and YAML)
 * and a readable summary rendered on the server from the same document —
 * its introduction, then each tag's operations with method, path, summary,
 * description, request body and responses. `/docs` puts it in a
 * `<noscript>`, where Redoc's rendering would otherwise be.
 */
export function referenceFallback(document: OpenApiDocument, links: DocumentLinks): SafeHtml {
  const tags = document.tags.map((tag) => {
    const operations = operationsOf(document, tag.name).map(({ method, path, operation }) => {
      const body = requestSchemaName(operation);
      const responses = Object.entries(operation.responses).map(
        ([status, response]) =>
          html`<li><code>${status}</code> ${withCode(response.description)}</li>`,
      );
      return html`<section class="fallback-operation" id="fallback-${operation.operationId}">
  <h4><code>${method.toUpperCase()} ${path}</code> ${operation.summary}</h4>
  ${paragraphs(operation.description)}
  ${body === undefined ? "" : html`<p>Request body: <code>${body}</code> (JSON; its schema is in the document).</p>`}
  <ul class="fallback-responses">${responses}</ul>
</section>`;
    });
    return html`<h3>${tag.name}</h3>
${tag.description === undefined ? "" : paragraphs(tag.description)}
${operations}`;
  });
  return html`<div class="reference-fallback">
<p class="notice">This reference is drawn with JavaScript, which is off here. The OpenAPI document it draws is at <a href="${links.json}">${links.json}</a> (JSON) and <a href="${links.yaml}">${links.yaml}</a> (YAML); its summary follows.</p>
<h2>${document.info.title} ${document.info.version}</h2>
${paragraphs(document.info.description ?? "")}
${tags}
</div>`;
}
