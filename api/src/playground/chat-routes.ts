import fs from "node:fs";
import { type Request, type RequestHandler, type Response, Router } from "express";
import { generateEndpoint } from "../generate/generate-endpoint.js";
import { readJsonBody } from "../http/read-body.js";
import { html, type SafeHtml } from "../pages/html.js";
import { sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import { pageLocals, type WebSupport } from "../pages/web-support.js";
import { personifyEndpoint } from "../personify/personify-endpoint.js";
import type { Caller } from "../pipeline/authorize.js";
import type { MeteredEndpoint } from "../pipeline/metered-request.js";
import { serveMetered } from "../pipeline/metered-request.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import type { Upstreams } from "../providers/upstream-config.js";
import {
  type AnsweredBy,
  CONNECT_A_MODEL_ANCHOR,
  CONNECT_A_MODEL_SECTION,
  describeAnswer,
  isDevelopmentTarget,
} from "./answered-by.js";
import { CHAT_SCRIPT, KEYS_SCRIPT } from "./browser-scripts.js";

const jsonErrors: RequestHandler = (_request, response, next) => {
  pageLocals(response).jsonErrors = true;
  next();
};

/**
 * An endpoint of the API as the playground serves it: the same pipeline
 * and body, plus `answeredBy` (which target answered, see {@link AnsweredBy}).
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

/** api/README.md, beside `src/` and `dist/` alike. */
const README_URL = new URL("../../README.md", import.meta.url);

/**
 * The README's sections on upstream kinds and model routes ("## Personas
 * and providers" up to the section after "Model routes"), as written; `""`
 * when the README is not there.
 */
function connectAModelText(): string {
  let readme: string;
  try {
    readme = fs.readFileSync(README_URL, "utf8");
  } catch {
    return "";
  }
  const start = readme.indexOf("\n## Personas and providers");
  const routes = readme.indexOf(`\n## ${CONNECT_A_MODEL_SECTION}`);
  if (start < 0 || routes < 0) return "";
  const end = readme.indexOf("\n## ", routes + 1);
  return readme.slice(start + 1, end < 0 ? undefined : end).trim();
}

/** The README's guide to connecting a model, folded at the foot of the playground. */
function connectAModel(text: string): SafeHtml | "" {
  if (text === "") return "";
  return html`<details class="guide-details">
    <summary>Connecting a model: from api/README.md, “Personas and providers” and “${CONNECT_A_MODEL_SECTION}”</summary>
    <p class="muted">The operator's upstream file and each persona's route decide which model answers; customers never choose (spec §1.5). The README's words, in Markdown:</p>
    <pre class="guide" id="${CONNECT_A_MODEL_ANCHOR}" tabindex="0">${text}</pre>
  </details>`;
}

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
 * Their answers add `answeredBy` (the target that answered; issue 28). The
 * page is a chat: the persona's bubbles left, the user's right, each reply
 * labelled with the persona's name and the target that answered, and a
 * notice linking the README's guide to connecting a model (folded at the
 * page's foot) when the persona is on the development engine.
 */
export function createChatRouter(web: WebSupport, context: PipelineContext): Router {
  const { services } = web;
  const router = Router();
  let guide: string | undefined;

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
    const upstreams = services.config.upstreams;
    guide ??= connectAModelText();
    const options = personas.map((persona) => {
      const first = persona.route[0];
      const development = first !== undefined && isDevelopmentTarget(first, upstreams);
      return html`<option value="${persona.id}" data-personify="${persona.personifyAccess}" data-development="${development}" data-target="${first === undefined ? "" : `${first.upstream}:${first.model}`}">${persona.name}</option>`;
    });
    sendPage(request, response, {
      title: "Playground",
      csrfToken,
      body: html`<div id="chat" data-csrf="${csrfToken}">
        <div class="chat-head">
          <p><label for="persona">Persona</label><select id="persona">${options}</select></p>
          <p id="persona-answers" class="answered-by" aria-live="polite"></p>
        </div>
        <div id="engine-notice" class="notice engine-notice" hidden>
          <p><strong>Development engine.</strong> This persona is answered by <code id="engine-target">offline</code>, the service's offline engine: a deterministic, rule-based composer for trying the service, not a language model. It knows nothing about what you ask and says so.</p>
          <p>To answer with a real model, the operator connects an OpenAI-compatible or Anthropic upstream and routes the persona to it: <a href="#${CONNECT_A_MODEL_ANCHOR}">connecting a model</a> (api/README.md, “${CONNECT_A_MODEL_SECTION}”).</p>
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
      ${connectAModel(guide)}
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
