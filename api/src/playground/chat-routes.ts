import { type Request, type RequestHandler, type Response, Router } from "express";
import { generateEndpoint } from "../generate/generate-endpoint.js";
import { readJsonBody } from "../http/read-body.js";
import { html } from "../pages/html.js";
import { sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import { pageLocals, type WebSupport } from "../pages/web-support.js";
import type { RouteTarget } from "../personas/model-route.js";
import { personifyEndpoint } from "../personify/personify-endpoint.js";
import type { Caller } from "../pipeline/authorize.js";
import type { MeteredEndpoint } from "../pipeline/metered-request.js";
import { serveMetered } from "../pipeline/metered-request.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import type { Upstreams } from "../providers/upstream-config.js";
import { type AnsweredBy, describeAnswer, isDevelopmentTarget } from "./answered-by.js";
import { CHAT_SCRIPT, KEYS_SCRIPT } from "./browser-scripts.js";

const jsonErrors: RequestHandler = (_request, response, next) => {
  pageLocals(response).jsonErrors = true;
  next();
};

/**
 * An endpoint of the API as the playground serves it: the same pipeline
 * and body, plus `answeredBy` (the persona version, see {@link AnsweredBy}).
 */
function withAnsweredBy<Body, Payload extends object>(
  endpoint: MeteredEndpoint<Body, Payload>,
  upstreams: Upstreams,
): MeteredEndpoint<Body, Payload & { answeredBy: AnsweredBy }> {
  return {
    ...endpoint,
    present: (body, output, rateLimits, persona) => ({
      ...endpoint.present(body, output, rateLimits, persona),
      answeredBy: describeAnswer(output.target, upstreams, persona.version),
    }),
  };
}

/**
 * The line under the persona picker: the live version and what its release
 * note tells the customer (`persona-admin … --release-note`), e.g.
 * "Version 3: Warmer greetings." The chat script rewrites it when another
 * persona is picked.
 */
function versionLine(version: number, releaseNote: string | null): string {
  return releaseNote === null ? `Version ${version}` : `Version ${version}: ${releaseNote}`;
}

function sendScript(script: string): RequestHandler {
  return (_request, response) => {
    response.setHeader("Cache-Control", "no-cache");
    response.type("text/javascript; charset=utf-8").send(script);
  };
}

/**
 * The playground chat: `GET /playground` is the page; the page
 * calls `POST /playground/api/generate` and `/playground/api/personify`
 * with its session cookie and CSRF token. Those endpoints take the bodies
 * of /api/v1/generate and /api/v1/personify (same schemas) and run the
 * same request pipeline for the session's account: billed to its balance
 * like API-key calls and limited per account (docs/API.md §8.1's 25/100/500,
 * bucket `playground:<accountId>`) — so no API key ever reaches the page.
 * Their answers add `answeredBy` (the persona version, and whether the
 * development engine answered; never the upstream or model). The page is
 * a chat: the persona's bubbles left, the user's right, each reply
 * labelled with the persona's name and version; under the picker, the live
 * version and its release note; a notice when the persona is on the
 * development engine.
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
    const personas = await services.personas.listWithLiveVersion(session.accountId);
    const [selected] = personas;
    if (selected === undefined) {
      sendPage(request, response, {
        title: "Playground",
        csrfToken,
        body: html`<p class="notice">Your account has no persona yet. The operator designs it with you at onboarding.</p>`,
      });
      return;
    }
    const upstreams = services.config.upstreams;
    const developmentOf = (route: readonly RouteTarget[]) => {
      const first = route[0];
      return first !== undefined && isDevelopmentTarget(first, upstreams);
    };
    // Each option carries what the script shows for it: never a target, only
    // whether it is the development engine (the customer does not see models).
    const options = personas.map(
      ({ persona, live }) =>
        html`<option value="${persona.id}" data-personify="${persona.personifyAccess}" data-development="${developmentOf(persona.route)}" data-version="${live.version}" data-version-line="${versionLine(live.version, live.releaseNote)}">${persona.name}</option>`,
    );
    sendPage(request, response, {
      title: "Playground",
      csrfToken,
      body: html`<div id="chat" data-csrf="${csrfToken}">
        <div class="chat-head">
          <p><label for="persona">Persona</label><select id="persona">${options}</select></p>
          <p id="persona-version" class="answered-by" aria-live="polite">${versionLine(selected.live.version, selected.live.releaseNote)}</p>
        </div>
        <div id="engine-notice" class="notice engine-notice"${developmentOf(selected.persona.route) ? "" : html` hidden`}>
          <p><strong>Development engine.</strong> This persona still answers with the service's development engine: a deterministic, rule-based stand-in for trying the service, not a language model. It knows nothing about what you ask and says so. The operator moves the persona to a language model with you.</p>
        </div>
        <ol id="chat-log" class="chat-log" aria-live="polite" aria-label="Conversation"></ol>
        <p id="chat-error" class="muted" role="alert"></p>
        <form id="chat-form">
          <p><label for="message">Message</label><textarea id="message" rows="3" maxlength="32000" required></textarea></p>
          <div class="composer">
            <label class="checkbox"><input type="checkbox" id="variations"> Include variations</label>
            <div class="send-actions"><button type="button" id="reset" class="button-quiet">New conversation</button><button type="submit" id="send">Send</button></div>
          </div>
        </form>
        <h2>Personify</h2>
        <p id="personify-unavailable" class="notice" hidden>This persona does not have access to /personify; the operator can enable it.</p>
        <form id="personify-form">
          <p><label for="raw">Text to rewrite</label><textarea id="raw" rows="3" maxlength="32000"></textarea></p>
          <p><button type="submit" id="personify-send">Personify</button></p>
          <div id="personify-result" class="personify-result" aria-live="polite"></div>
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
  const playgroundGenerate = withAnsweredBy(generateEndpoint, services.config.upstreams);
  const playgroundPersonify = withAnsweredBy(personifyEndpoint, services.config.upstreams);
  router.post("/playground/api/generate", jsonErrors, ...web.page, json, (request, response) =>
    serveMetered(context, playgroundGenerate, request, response, sessionCaller),
  );
  router.post("/playground/api/personify", jsonErrors, ...web.page, json, (request, response) =>
    serveMetered(context, playgroundPersonify, request, response, sessionCaller),
  );

  return router;
}
