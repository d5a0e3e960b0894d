import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import { gzipSync } from "node:zlib";
import type { RequestHandler } from "express";
import { html, type SafeHtml } from "../pages/html.js";
import type { DocumentLinks } from "./reference-fallback.js";
import { REFERENCE_ASSETS_PATH } from "./reference-paths.js";

/**
 * The one address of Redoc's standalone bundle that would leave the site:
 * the Redocly logo of its sidebar footer, always rendered and not
 * configurable. It is swapped for an empty `data:` image (the component hides
 * an image that fails to load), so the page stays offline and inside the
 * CSP's `img-src 'self' data:`.
 */
export const REDOC_LOGO_URL = "https://cdn.redoc.ly/redoc/logo-mini.svg";

/** A static script served by the service. */
export interface ServedScript {
  /** The URL path, with `?v=` and the content hash (cached for a year). */
  url: string;
  /** The script as served, UTF-8. */
  body: Buffer;
  /** `body` gzip-compressed, for clients that accept it. */
  gzip: Buffer;
}

function served(path: string, body: Buffer): ServedScript {
  const version = createHash("sha256").update(body).digest("hex").slice(0, 16);
  return { url: `${path}?v=${version}`, body, gzip: gzipSync(body) };
}

/**
 * Redoc's standalone bundle (`redoc/bundles/redoc.standalone.js`: React and
 * the renderer in one self-contained file, no network access of its own),
 * read from node_modules once at start-up. Its source-map comment is dropped
 * (the map is not served) and the footer logo's CDN address replaced (see
 * {@link REDOC_LOGO_URL}).
 *
 * @throws Error when the package is not installed
 */
export function loadRedocBundle(): ServedScript {
  const file = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");
  const text = fs
    .readFileSync(file, "utf8")
    .replaceAll(REDOC_LOGO_URL, "data:,")
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/u, "\n");
  return served(`${REFERENCE_ASSETS_PATH}/redoc.standalone.js`, Buffer.from(text, "utf8"));
}

/**
 * The start script: renders the document named by the container's
 * `data-spec-url` with Redoc, in the site's fonts. A file rather than an
 * inline script, so the page keeps `script-src 'self'`.
 */
const START_SCRIPT = `"use strict";
(function () {
  var container = document.getElementById("reference");
  if (!container || !window.Redoc) return;
  var sans = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  var mono = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';
  window.Redoc.init(
    container.getAttribute("data-spec-url"),
    {
      theme: {
        typography: {
          fontFamily: sans,
          headings: { fontFamily: sans },
          code: { fontFamily: mono, wrap: true },
        },
        sidebar: { width: "17rem" },
        rightPanel: { width: "40%" },
      },
      requiredPropsFirst: true,
      jsonSampleExpandLevel: 4,
      nativeScrollbars: true,
      hideHostname: true,
      pathInMiddlePanel: true,
      menuToggle: true,
    },
    container,
  );
  // Redoc names each sidebar entry with an aria-label of the summary alone, while the
  // entry shows the method too; speech and voice-control users meet a name that differs
  // from what they see (WCAG 2.5.3). Without the attribute the entry is named by its text.
  function nameEntriesByText() {
    var entries = container.querySelectorAll('li[role="menuitem"][aria-label]');
    for (var i = 0; i < entries.length; i += 1) entries[i].removeAttribute("aria-label");
  }
  new MutationObserver(nameEntriesByText).observe(container, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["aria-label"],
  });
})();
`;

/** The start script, versioned like the bundle. */
export const REFERENCE_START_SCRIPT = served(
  `${REFERENCE_ASSETS_PATH}/reference.js`,
  Buffer.from(START_SCRIPT, "utf8"),
);

/**
 * Answers a {@link ServedScript}: gzip when the client accepts it, cached
 * for a year at its versioned URL and revalidated otherwise.
 */
export function sendScript(script: ServedScript): RequestHandler {
  const version = new URL(script.url, "http://localhost").searchParams.get("v");
  return (request, response) => {
    response.setHeader(
      "Cache-Control",
      request.query.v === version ? "public, max-age=31536000, immutable" : "no-cache",
    );
    response.setHeader("Vary", "Accept-Encoding");
    response.type("text/javascript; charset=utf-8");
    if (request.acceptsEncodings("gzip") === "gzip") {
      response.setHeader("Content-Encoding", "gzip");
      response.send(script.gzip);
    } else {
      response.send(script.body);
    }
  };
}

/**
 * The CSP of the reference page: the pages' policy plus `worker-src 'self'
 * blob:`. Redoc builds its search index in a web worker that it starts from
 * a `blob:` URL of code inside its own bundle (loaded from 'self'); no other
 * page allows that.
 */
export function withReferenceWorkers(policy: string): string {
  return `${policy.replace(/;\s*$/u, "")};worker-src 'self' blob:`;
}

/**
 * The body of `/docs`: the container Redoc renders into, and its two
 * scripts; without JavaScript, `fallback` (a `<noscript>` in the container:
 * the document's links and its summary drawn on the server).
 */
export function referenceBody(
  links: DocumentLinks,
  bundle: ServedScript,
  fallback: SafeHtml,
): SafeHtml {
  return html`<style>
  #main { max-width: none; padding: 0; }
  #main > h1, .reference-intro, .reference-fallback { max-width: 60rem; margin-left: auto; margin-right: auto; padding: 0 1rem; }
  #reference { background: #fff; color: #1f2328; }
  .reference-fallback { background: var(--background); color: var(--text); padding-bottom: 2rem; }
  .reference-fallback h4 { font-size: 1rem; margin: 1.5rem 0 0.25rem; overflow-wrap: anywhere; }
  .reference-fallback ul { padding-left: 1.25rem; }
</style>
<p class="reference-intro muted">The OpenAPI 3.1 document behind this page: <a href="${links.json}">${links.json}</a> (also as <a href="${links.yaml}">YAML</a>).</p>
<div id="reference" data-spec-url="${links.json}"><noscript>${fallback}</noscript></div>
<script src="${bundle.url}"></script>
<script src="${REFERENCE_START_SCRIPT.url}"></script>`;
}
