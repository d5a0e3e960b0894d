import type { Request, Response } from "express";
import { FAVICON_PATH } from "./favicon.js";
import { html, type SafeHtml } from "./html.js";
import { SITE_STYLE_PATH, SITE_STYLE_VERSION } from "./site-style.js";
import { CSRF_FIELD, pageLocals } from "./web-support.js";

/** What a page shows. */
export interface PageContent {
  title: string;
  body: SafeHtml;
  /** HTTP status, 200 by default. */
  status?: number;
  /** The CSRF token for the sign-out form in the header (when signed in). */
  csrfToken?: string;
}

/** A hidden form field carrying the CSRF token. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** The header's links: shown to everyone, or only when signed in. */
const NAVIGATION: ReadonlyArray<{ href: string; label: string; signedIn: boolean }> = [
  { href: "/docs", label: "API reference", signedIn: false },
  { href: "/account", label: "Account", signedIn: true },
  { href: "/playground", label: "Playground", signedIn: true },
  { href: "/keys", label: "Keys", signedIn: true },
  { href: "/usage", label: "Usage", signedIn: true },
  { href: "/sessions", label: "Sessions", signedIn: true },
];

/** The header navigation; the link of the page shown carries `aria-current="page"`. */
function navigationLinks(path: string, signedIn: boolean): SafeHtml {
  const links = NAVIGATION.filter((link) => signedIn || !link.signedIn);
  if (!signedIn) links.push({ href: "/sign-in", label: "Sign in", signedIn: false });
  return html`<ul>${links.map(
    (link) =>
      html`<li><a href="${link.href}"${path === link.href ? html` aria-current="page"` : ""}>${link.label}</a></li>`,
  )}</ul>`;
}

/**
 * Sends a full HTML page with the site header: the brand, then the
 * navigation and (signed in) the account with its sign-out button, all in
 * one `<details>` menu. On a phone the header is one row, the brand and a
 * "Menu" button that opens the links below it, without JavaScript; on a
 * wide screen the stylesheet shows the links in the row and hides the
 * button. Pages are never cached (see WebSupport.page).
 */
export function sendPage(request: Request, response: Response, content: PageContent): void {
  const session = pageLocals(response).session;
  const account =
    session === undefined
      ? ""
      : html`<span class="account"><span>${session.email}</span>${
          content.csrfToken === undefined
            ? ""
            : html`<form method="post" action="/sign-out">${csrfField(content.csrfToken)}<button type="submit">Sign out</button></form>`
        }</span>`;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${content.title} · Persona Reply</title>
<link rel="icon" href="${FAVICON_PATH}" sizes="32x32">
<link rel="stylesheet" href="${SITE_STYLE_PATH}?v=${SITE_STYLE_VERSION}">
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><a class="brand" href="/"${request.path === "/" ? html` aria-current="page"` : ""}>Persona Reply</a>
<details class="site-menu"><summary>Menu</summary><div class="site-menu-panel">
<nav aria-label="Site">${navigationLinks(request.path, session !== undefined)}</nav>${account}</div></details></header>
<main id="main" tabindex="-1">
<h1>${content.title}</h1>
${content.body}
</main>
</body>
</html>`;
  response
    .status(content.status ?? 200)
    .type("text/html; charset=utf-8")
    .send(page.value);
}
