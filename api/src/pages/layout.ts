import type { Request, Response } from "express";
import { FAVICON_PATH } from "./favicon.js";
import { html, type SafeHtml } from "./html.js";
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

const STYLE = html`<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; }
  header { display: flex; gap: 1rem; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid #8884; }
  header .brand { font-weight: 600; margin-right: auto; color: inherit; text-decoration: none; }
  header form { margin: 0; }
  main { max-width: 52rem; margin: 0 auto; padding: 1.5rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #8883; vertical-align: top; }
  input[type=text], input[type=email], select, textarea { font: inherit; padding: .4rem; width: 100%; box-sizing: border-box; }
  button { font: inherit; padding: .4rem .9rem; cursor: pointer; }
  .notice { padding: .75rem 1rem; border: 1px solid #8886; border-radius: .4rem; margin: 1rem 0; }
  .error { border-color: #c33; }
  .secret { font-family: ui-monospace, monospace; word-break: break-all; padding: .5rem; border: 1px dashed #8888; }
  .muted { opacity: .7; }
  .chat-log { border: 1px solid #8884; border-radius: .4rem; padding: .75rem; min-height: 8rem; margin: 1rem 0; }
  .turn { margin: .4rem 0; }
  .turn .role { font-weight: 600; }
  .row { display: flex; gap: .5rem; align-items: end; }
  .row > * { flex: 1; }
  .row > button { flex: 0; }
  .actions { display: flex; gap: .75rem; }
  .actions form { margin: 0; }
</style>`;

/**
 * Sends a full HTML page with the site header: navigation and a sign-out
 * button when signed in. Pages are never cached (see WebSupport.page).
 */
export function sendPage(_request: Request, response: Response, content: PageContent): void {
  const session = pageLocals(response).session;
  const navigation =
    session === undefined
      ? html`<a href="/docs">API reference</a> <a href="/sign-in">Sign in</a>`
      : html`<a href="/docs">API reference</a>
          <a href="/playground">Playground</a>
          <a href="/keys">Keys</a>
          <a href="/sessions">Sessions</a>
          <span class="muted">${session.email}</span>
          ${
            content.csrfToken === undefined
              ? ""
              : html`<form method="post" action="/sign-out">${csrfField(content.csrfToken)}<button type="submit">Sign out</button></form>`
          }`;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${content.title} · Persona Reply</title>
<link rel="icon" href="${FAVICON_PATH}" sizes="32x32">
${STYLE}
</head>
<body>
<header><a class="brand" href="/">Persona Reply</a>${navigation}</header>
<main>
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
