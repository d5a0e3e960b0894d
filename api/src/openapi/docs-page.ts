import { escapeHtml, html, SafeHtml } from "../pages/html.js";
import type {
  HeaderOrReference,
  HttpMethod,
  JsonSchema,
  OpenApiDocument,
  OperationObject,
  ResponseObject,
} from "./openapi-types.js";
import { componentName, type FieldRow, fieldRows, resolveSchema } from "./schema-table.js";

const METHODS: HttpMethod[] = ["get", "post", "put", "patch", "delete"];

/** Text with `backticks` as code and blank lines as paragraph breaks, escaped. */
function prose(text: string): SafeHtml {
  const paragraphs = text.split(/\n{2,}/u).map((paragraph) => {
    const escaped = escapeHtml(paragraph).replace(/`([^`]+)`/gu, "<code>$1</code>");
    return `<p>${escaped}</p>`;
  });
  return new SafeHtml(paragraphs.join("\n"));
}

/** Inline text with `backticks` as code, escaped. */
function inline(text: string): SafeHtml {
  return new SafeHtml(escapeHtml(text).replace(/`([^`]+)`/gu, "<code>$1</code>"));
}

function anchorOf(operation: OperationObject): string {
  return `operation-${operation.operationId}`;
}

function schemaLink(name: string): SafeHtml {
  return html`<a href="#schema-${name}"><code>${name}</code></a>`;
}

function typeCell(type: string, components: Record<string, JsonSchema>): SafeHtml {
  // Component names inside a type label become links to their table.
  const parts = type.split(/(\b[A-Z][A-Za-z]+\b)/u);
  return new SafeHtml(
    parts.map((part) => (part in components ? schemaLink(part).value : escapeHtml(part))).join(""),
  );
}

function fieldTable(rows: FieldRow[], components: Record<string, JsonSchema>): SafeHtml {
  if (rows.length === 0) return html``;
  return html`<table class="fields">
    <thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr></thead>
    <tbody>${rows.map(
      (row) => html`<tr>
        <td><code>${row.name}</code></td>
        <td>${typeCell(row.type, components)}</td>
        <td>${row.required ? "yes" : "no"}</td>
        <td>${inline(row.description)}${
          row.rules.length === 0 ? "" : html` <span class="muted">(${row.rules.join("; ")})</span>`
        }</td>
      </tr>`,
    )}</tbody>
  </table>`;
}

function bodySummary(schema: JsonSchema, components: Record<string, JsonSchema>): SafeHtml {
  const name = componentName(schema);
  const resolved = resolveSchema(schema, components);
  const narrowed = (resolved.properties as Record<string, JsonSchema> | undefined)?.error;
  const errorProperties = narrowed?.properties as Record<string, JsonSchema> | undefined;
  const types = errorProperties?.type?.enum;
  const codes = errorProperties?.code?.enum;
  const notes: SafeHtml[] = [];
  if (Array.isArray(types)) {
    notes.push(
      html` — <code>error.type</code>: ${types.map((t) => html`<code>${String(t)}</code> `)}`,
    );
  }
  if (Array.isArray(codes)) {
    notes.push(
      html`; <code>error.code</code>: ${codes.map((c) => html`<code>${String(c)}</code> `)}`,
    );
  }
  if (name !== undefined) return html`${schemaLink(name)}${notes}`;
  return html`${typeof resolved.type === "string" ? resolved.type : "JSON"}${notes}`;
}

function headerNames(headers: Record<string, HeaderOrReference> | undefined): SafeHtml {
  const names = Object.keys(headers ?? {});
  return names.length === 0
    ? html``
    : html`<br><span class="muted">headers: ${names.map((n, i) => html`${i > 0 ? ", " : ""}<code>${n}</code>`)}</span>`;
}

function responsesTable(
  responses: Record<string, ResponseObject>,
  components: Record<string, JsonSchema>,
): SafeHtml {
  const rows = Object.entries(responses).map(([status, response]) => {
    const content = Object.entries(response.content ?? {});
    const formats =
      content.length === 0
        ? html`<span class="muted">no body</span>`
        : content.map(
            ([mediaType, media], index) =>
              html`${index > 0 ? html`<br>` : ""}<code>${mediaType}</code> ${
                mediaType === "application/json" ? bodySummary(media.schema, components) : ""
              }`,
          );
    return html`<tr><td><strong>${status}</strong></td><td>${formats}</td><td>${inline(response.description)}${headerNames(response.headers)}</td></tr>`;
  });
  return html`<table><thead><tr><th>Status</th><th>Body</th><th>When</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function securityLine(operation: OperationObject): SafeHtml {
  const requirements = operation.security ?? [];
  const names = requirements.map((requirement) => Object.keys(requirement)[0] ?? "none");
  if (names.length === 0) return html`<p><strong>Authentication:</strong> none.</p>`;
  return html`<p><strong>Authentication:</strong> ${names.map(
    (name, index) =>
      html`${index > 0 ? " or " : ""}${name === "none" ? "none" : html`<a href="#auth-${name}">${name}</a>`}`,
  )}.</p>`;
}

function operationSection(
  path: string,
  method: HttpMethod,
  operation: OperationObject,
  components: Record<string, JsonSchema>,
): SafeHtml {
  const parameters = operation.parameters ?? [];
  const body = operation.requestBody;
  const okResponse = Object.entries(operation.responses).find(([status]) => status.startsWith("2"));
  const okSchema = okResponse?.[1].content?.["application/json"]?.schema;
  return html`<section id="${anchorOf(operation)}" class="operation">
    <h3><code>${method.toUpperCase()} ${path}</code> — ${operation.summary}</h3>
    ${prose(operation.description)}
    ${securityLine(operation)}
    ${
      parameters.length === 0
        ? ""
        : html`<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Required</th><th>Notes</th></tr></thead><tbody>${parameters.map(
            (parameter) =>
              html`<tr><td><code>${parameter.name}</code></td><td>${parameter.in}</td><td>${parameter.required ? "yes" : "no"}</td><td>${inline(parameter.description)}</td></tr>`,
          )}</tbody></table>`
    }
    ${
      body === undefined
        ? ""
        : Object.entries(body.content).map(
            ([mediaType, media]) => html`<h4>Request body <code>${mediaType}</code></h4>
              ${componentName(media.schema) === undefined ? "" : html`<p>${schemaLink(componentName(media.schema) ?? "")}</p>`}
              ${fieldTable(fieldRows(media.schema, components), components)}
              ${media.example === undefined ? "" : html`<details><summary>Example</summary><pre>${JSON.stringify(media.example, null, 2)}</pre></details>`}`,
          )
    }
    <h4>Responses</h4>
    ${responsesTable(operation.responses, components)}
    ${
      okSchema === undefined || componentName(okSchema) === undefined
        ? ""
        : html`<details><summary>Fields of ${componentName(okSchema) ?? ""}</summary>${fieldTable(fieldRows(okSchema, components), components)}</details>`
    }
  </section>`;
}

const PAGE_STYLE = html`<style>
  pre { overflow-x: auto; padding: .75rem; border: 1px solid #8884; border-radius: .4rem; }
  code { font-family: ui-monospace, monospace; font-size: .92em; }
  .operation { border-top: 1px solid #8884; margin-top: 2rem; padding-top: .5rem; }
  table.fields td:first-child { white-space: nowrap; }
  nav.contents ul { margin-top: .25rem; }
</style>`;

/**
 * Renders the OpenAPI document as the body of a readable reference page:
 * the introduction, authentication schemes, a table of contents by tag,
 * every operation (parameters, request body fields, responses with their
 * formats and error codes) and every schema as a field table.
 */
export function renderReference(document: OpenApiDocument, documentPath: string): SafeHtml {
  const components = document.components.schemas;
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      return operation === undefined ? [] : [{ path, method, operation }];
    }),
  );
  const byTag = document.tags.map((tag) => ({
    tag,
    operations: operations.filter(({ operation }) => operation.tags.includes(tag.name)),
  }));
  return html`${PAGE_STYLE}
    <p class="muted">${document.info.title} ${document.info.version} ·
      <a href="${documentPath}">OpenAPI ${document.openapi} document (JSON)</a></p>
    ${prose(document.info.description)}
    <nav class="contents"><h2>Contents</h2>${byTag.map(
      ({ tag, operations: tagged }) =>
        html`<strong>${tag.name}</strong><ul>${tagged.map(
          ({ path, method, operation }) =>
            html`<li><a href="#${anchorOf(operation)}"><code>${method.toUpperCase()} ${path}</code></a> — ${operation.summary}</li>`,
        )}</ul>`,
    )}<strong><a href="#schemas">Schemas</a></strong></nav>
    <h2>Authentication</h2>
    <table><thead><tr><th>Scheme</th><th>How</th><th>Notes</th></tr></thead><tbody>${Object.entries(
      document.components.securitySchemes,
    ).map(
      ([name, scheme]) =>
        html`<tr id="auth-${name}"><td><code>${name}</code></td><td>${
          scheme.type === "http"
            ? html`<code>Authorization: Bearer …</code>`
            : html`${scheme.in} <code>${scheme.name}</code>`
        }</td><td>${inline(scheme.description)}</td></tr>`,
    )}</tbody></table>
    ${byTag.map(
      ({ tag, operations: tagged }) =>
        html`<h2>${tag.name}</h2>${prose(tag.description)}${tagged.map(
          ({ path, method, operation }) => operationSection(path, method, operation, components),
        )}`,
    )}
    <h2 id="schemas">Schemas</h2>
    ${Object.entries(components).map(
      ([name, schema]) => html`<section id="schema-${name}"><h3><code>${name}</code></h3>
        ${typeof schema.description === "string" ? prose(schema.description) : ""}
        ${fieldTable(fieldRows(schema, components), components)}</section>`,
    )}`;
}
