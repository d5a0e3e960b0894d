import {
  type GenerateResponse,
  generateRequestSchema,
  personifyRequestSchema,
} from "@persona-reply/shared";
import express, { type Request, type RequestHandler, type Response, Router } from "express";
import type { Admission, Endpoint } from "../billing/admit-request.js";
import { meteredPersonify, meteredReply } from "../engine/metered-replies.js";
import { ServiceError } from "../http/service-error.js";
import { validateBody } from "../http/validate-body.js";
import { html } from "../pages/html.js";
import { sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import { pageLocals, type WebSupport } from "../pages/web-support.js";
import type { Persona } from "../personas/persona.js";
import { requireActiveAccount } from "./account-access.js";
import { CHAT_SCRIPT, KEYS_SCRIPT } from "./browser-scripts.js";
import type { RateLimiter, RateLimitRule } from "./rate-limiter.js";

/** Playground calls per account: the spec's default key limits (§8.1), 25/min, 100/h, 500/day. */
export const PLAYGROUND_RULES: RateLimitRule[] = [
  { limit: 25, windowMs: 60_000 },
  { limit: 100, windowMs: 3_600_000 },
  { limit: 500, windowMs: 86_400_000 },
];

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
 * of /api/v1/generate and /api/v1/personify (same schemas), act for the
 * session's account (billed to its balance like API-key calls), and answer
 * with the same bodies — so no API key ever reaches the page.
 */
export function createChatRouter(web: WebSupport, limiter: RateLimiter): Router {
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

  /**
   * Session → active account → limit → the persona, which must be the
   * account's. The call is then billed to the account's balance like an
   * API-key request (no key: `apiKeyId` is null in its usage row).
   */
  async function admit(
    request: Request,
    response: Response,
    personaId: string,
    endpoint: Endpoint,
  ): Promise<Admission> {
    const session = requireSession(request, response);
    if (session === undefined) throw new PageError(401, "Sign in first.");
    await requireActiveAccount(services, session.accountId);
    const decision = await limiter.hit(`playground:account:${session.accountId}`, PLAYGROUND_RULES);
    if (!decision.allowed) {
      throw new PageError(429, "Too many playground requests; wait a little and try again.", {
        "Retry-After": String(decision.retryAfterSeconds),
      });
    }
    const persona: Persona | undefined = await services.personas.find(personaId);
    if (persona?.accountId !== session.accountId) {
      throw new ServiceError("unknown_persona", `unknown personaId: ${personaId}`);
    }
    const id = (request as Request & { id?: unknown }).id;
    return {
      endpoint,
      persona,
      accountId: session.accountId,
      apiKeyId: null,
      requestId: typeof id === "string" ? id : null,
      resourceUrl: `${web.origin(request)}${request.path}`,
    };
  }

  const json = express.json({ limit: services.config.PERSONA_BODY_LIMIT_BYTES });

  router.post(
    "/playground/api/generate",
    jsonErrors,
    ...web.page,
    json,
    async (request, response) => {
      const body = validateBody(generateRequestSchema, request.body, "unprocessable_request");
      const admission = await admit(request, response, body.personaId, "generate");
      const result = await meteredReply(
        services,
        admission,
        response,
        body.messages,
        body.includeVariations === true,
      );
      const payload: GenerateResponse = { status: "success", result };
      response.json(payload);
    },
  );

  router.post(
    "/playground/api/personify",
    jsonErrors,
    ...web.page,
    json,
    async (request, response) => {
      const body = validateBody(personifyRequestSchema, request.body, "invalid_request");
      const admission = await admit(request, response, body.personaId, "personify");
      const persona = admission.persona;
      if (!persona.personifyAccess) {
        throw new ServiceError(
          "personify_not_allowed",
          "this persona does not have access to /personify; ask the operator to enable it",
        );
      }
      const payload = await meteredPersonify(services, admission, response, body.raw);
      response.json(payload);
    },
  );

  return router;
}
