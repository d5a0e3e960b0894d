import { MODELS_PATH } from "@persona-reply/shared";
import { Router } from "express";
import { REVIEW_DAYS } from "../applications/application-mail.js";
import { buildFavicon, FAVICON_PATH } from "./favicon.js";
import { html } from "./html.js";
import { sendPage } from "./layout.js";
import { createPageErrorHandler } from "./page-errors.js";
import { SITE_STYLE, SITE_STYLE_PATH, SITE_STYLE_VERSION } from "./site-style.js";
import { pageLocals, type WebSupport } from "./web-support.js";

/**
 * The service root and its icon. `GET /` is a small landing page: what the
 * service is, where its API lives, and links to the API reference, the
 * playground, the keys, the access application and sign-in. `GET /favicon.ico` is the icon every
 * page links (cached for a day).
 */
export function createLandingRouter(web: WebSupport): Router {
  const router = Router();
  const favicon = buildFavicon();

  router.get(FAVICON_PATH, (_request, response) => {
    response.setHeader("Cache-Control", "public, max-age=86400");
    response.type("image/x-icon").send(favicon);
  });

  router.get(SITE_STYLE_PATH, (request, response) => {
    // Versioned by the hash in the query: a year of caching when it matches.
    const current = request.query.v === SITE_STYLE_VERSION;
    response.setHeader(
      "Cache-Control",
      current ? "public, max-age=31536000, immutable" : "public, max-age=300",
    );
    response.type("text/css; charset=utf-8").send(SITE_STYLE);
  });

  router.get("/", ...web.page, (request, response) => {
    const signedIn = pageLocals(response).session !== undefined;
    const api = `${web.origin(request)}/api/v1`;
    sendPage(request, response, {
      title: "Replies in your persona's voice",
      ...(signedIn ? { csrfToken: web.csrfToken(request, response) } : {}),
      body: html`<p>Persona Reply is a hosted API that answers chat messages in a custom persona's
        voice, rewrites text into that voice, and speaks a completions-style dialect for clients
        written against the widely used completions interface. Each persona is designed with you at
        onboarding and has its own ID; the persona, not you, picks the model behind it.</p>
        <nav aria-label="Start here">
          <ul>
            <li><a href="/docs">API reference</a>: every endpoint, field and error, and the OpenAPI document.</li>
            <li><a href="/playground">Playground</a>: chat with your personas and try /personify in the browser.</li>
            <li><a href="/keys">API keys</a>: create, list and revoke the keys your programs use.</li>
            ${
              signedIn
                ? html`<li><a href="/account">Your account</a>: your personas and their IDs, and the next steps.</li>`
                : html`<li><a href="/apply">Apply for access</a>: the beta is by application; a review usually takes ${REVIEW_DAYS}.</li>
            <li><a href="/sign-in">Sign in</a> with the e-mail address the operator allowed for you.</li>`
            }
          </ul>
        </nav>
        <h2>Call the API</h2>
        <p>Send your key in <code>x-api-key</code> or as <code>Authorization: Bearer</code>. Clients of
        the completions interface take <code>${api}</code> as their base URL and the persona ID as the
        model; <code>GET ${MODELS_PATH}</code> lists the personas your key may use.</p>
        <pre tabindex="0"><code>curl -s ${api}/generate \\
  -H "content-type: application/json" -H "x-api-key: $SERVICE_API_KEY" \\
  -d '{"personaId":"&lt;persona ID&gt;","messages":[{"role":"user","content":"Hello!"}]}'</code></pre>`,
    });
  });

  router.use(createPageErrorHandler(web.services.logger));
  return router;
}
