import { type Request, type RequestHandler, type Response, Router } from "express";
import { generateEndpoint } from "../generate/generate-endpoint.js";
import { readJsonBody } from "../http/read-body.js";
import { html } from "../pages/html.js";
import { sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import { pageLocals, type WebSupport } from "../pages/web-support.js";
import { personifyEndpoint } from "../personify/personify-endpoint.js";
import type { Caller } from "../pipeline/authorize.js";
import { serveMetered } from "../pipeline/metered-request.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { CHAT_SCRIPT, KEYS_SCRIPT } from "./browser-scripts.js";

const jsonErrors: RequestHandler = (_request, response, next) => {
  pageLocals(response).jsonErrors = true;
  next();
};

function sendScript(script: string): RequestHandler {
  return (_request, response) => {
    response.setHeader("Cache-Control", "no-cache");
    response.type("text/javascript; charset=utf-8").send(script);
  };
}

/**
 * The playground chat (issue 5): `GET /playground` is the page; the page
 * calls `POST /playground/api/generate` and `/playground/api/personify`
 * with its session cookie and CSRF token. Those endpoints take the bodies
 * of /api/v1/generate and /api/v1/personify (same schemas) and run the
 * same request pipeline for the session's account: billed to its balance
 * like API-key calls and limited per account (spec §8.1's 25/100/500,
 * bucket `playground:<accountId>`) — so no API key ever reaches the page.
 */
export function createChatRouter(web: WebSupport, context: PipelineContext): Router {
  const { services } = web;
  const router = Router();

  router.get("/playground/assets/keys.js", sendScript(KEYS_SCRIPT));
  router.get("/playground/assets/chat.js", sendScript(CHAT_SCRIPT));

  router.get("/playground", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const csrfToken = web.csrfToken(request, response);
    const personas = await services.personas.list(session.accountId);
    if (personas.length === 0) {
      sendPage(request, response, {
        title: "Playground",
        csrfToken,
        body: html`<p class="notice">Your account has no persona yet. The operator designs it with you at onboarding.</p>`,
      });
      return;
    }
    const options = personas.map(
      (persona) =>
        html`<option value="${persona.id}" data-personify="${persona.personifyAccess}">${persona.name}</option>`,
    );
    sendPage(request, response, {
      title: "Playground",
      csrfToken,
      body: html`<div id="chat" data-csrf="${csrfToken}">
        <form id="chat-form">
          <p><label>Persona <select id="persona">${options}</select></label></p>
          <div id="chat-log" class="chat-log" aria-live="polite"></div>
          <p id="chat-error" class="muted" role="alert"></p>
          <p><label>Message <textarea id="message" rows="3" maxlength="32000" required></textarea></label></p>
          <p><label><input type="checkbox" id="variations"> Include variations</label></p>
          <p><button type="submit" id="send">Send</button> <button type="button" id="reset">New conversation</button></p>
        </form>
        <h2>Personify</h2>
        <p id="personify-unavailable" class="notice" hidden>This persona does not have access to /personify; the operator can enable it.</p>
        <form id="personify-form">
          <p><label>Text to rewrite <textarea id="raw" rows="3" maxlength="32000"></textarea></label></p>
          <p><button type="submit" id="personify-send">Personify</button></p>
          <p id="personify-result" class="turn"></p>
        </form>
      </div>
      <script src="/playground/assets/chat.js"></script>`,
    });
  });

  /** The authenticate stage for the playground: the signed-in session's account (401 without). */
  const sessionCaller = async (request: Request, response: Response): Promise<Caller> => {
    const session = requireSession(request, response);
    if (session === undefined) throw new PageError(401, "Sign in first.");
    return { kind: "session", accountId: session.accountId };
  };

  const json = readJsonBody(services.config.PERSONA_BODY_LIMIT_BYTES);
  router.post("/playground/api/generate", jsonErrors, ...web.page, json, (request, response) =>
    serveMetered(context, generateEndpoint, request, response, sessionCaller),
  );
  router.post("/playground/api/personify", jsonErrors, ...web.page, json, (request, response) =>
    serveMetered(context, personifyEndpoint, request, response, sessionCaller),
  );

  return router;
}
