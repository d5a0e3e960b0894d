import {
  checkRedirectUri,
  LOGIN_DENIED_ERROR,
  LOGIN_PATH,
  type LoginCallback,
  type LoginSource,
} from "@persona-reply/shared";
import { type Request, type RequestHandler, type Response, Router } from "express";
import { html } from "../pages/html.js";
import { csrfField, sendPage } from "../pages/layout.js";
import { createPageErrorHandler, PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import { pageLocals, type WebSupport } from "../pages/web-support.js";
import { requireActiveAccount, requireRoomForKey } from "../playground/account-access.js";
import { encryptApiKey } from "./encrypt-api-key.js";
import { LoginConsentStore } from "./login-consent-store.js";
import { checkLoginParameters, type LoginParameters } from "./login-parameters.js";
import { SOURCE_LABELS } from "./source-labels.js";

/** The key name used when the caller sent none. */
export function defaultKeyName(source: LoginSource | undefined): string {
  return source === undefined ? "browser login" : `${source} login`;
}

async function checkedOrRefused(parameters: Record<string, unknown>): Promise<LoginParameters> {
  const checked = await checkLoginParameters(parameters);
  if (!checked.ok) {
    // A bad request is answered here, never by a redirect to a callback that failed its checks.
    throw new PageError(
      400,
      `This login request is not valid: parameter ${checked.parameter} ${checked.reason}. Start the login again from your tool.`,
    );
  }
  return checked.value;
}

/**
 * The page of a login request that was answered already: the
 * same 400 page, in the same words, as the sign-in flow's used link.
 */
function consentUsed(): PageError {
  return new PageError(
    400,
    "This login request does not work anymore: it was approved or denied already. Start the login again from your tool.",
  );
}

function callbackUrl(parameters: LoginParameters, values: LoginCallback): string {
  const url = new URL(parameters.redirectUri);
  for (const [name, value] of Object.entries(values)) url.searchParams.set(name, value);
  return url.href;
}

function consentForm(parameters: LoginParameters, csrfToken: string, decision: "approve" | "deny") {
  const label = decision === "approve" ? "Approve" : "Deny";
  return html`<form method="post" action="${LOGIN_PATH}">
    ${csrfField(csrfToken)}
    <input type="hidden" name="state" value="${parameters.state}">
    <input type="hidden" name="redirect_uri" value="${parameters.redirectUri}">
    <input type="hidden" name="recipient_public_key_jwk" value="${parameters.recipientEncoded}">
    ${parameters.name === undefined ? "" : html`<input type="hidden" name="name" value="${parameters.name}">`}
    ${parameters.source === undefined ? "" : html`<input type="hidden" name="source" value="${parameters.source}">`}
    <input type="hidden" name="decision" value="${decision}">
    <button type="submit" id="${decision}">${label}</button>
  </form>`;
}

/**
 * The browser login route (docs/API.md §4.5). `GET` checks the parameters
 * (a 400 page naming the bad one, never a redirect), sends a visitor who is
 * not signed in through the sign-in flow and back, and shows the consent
 * page; it never creates a key. The consent page's CSRF-protected `POST`
 * either creates a key for the signed-in account, encrypts it to the
 * caller's public key (compact JWE, RSA-OAEP-256 + A256GCM) and redirects
 * (303) to the callback with `state` and `encrypted_api_key` only, or
 * redirects with `state` and `error=access_denied`. The plaintext key is
 * never rendered, logged or stored. A consent is used once: a
 * login request (its `state`) answered already shows the "used" page on
 * `GET` and on every later `POST`, which creates nothing.
 */
export function createLoginRouter(web: WebSupport): Router {
  const { services } = web;
  const consents = new LoginConsentStore(services.database);
  const router = Router();

  // The approval redirects to the callback, and a form's redirect target counts for the
  // page's CSP form-action; helmet writes that header first, so the origin is set before it.
  const allowCallbackInForms: RequestHandler = (request, response, next) => {
    const raw = request.query.redirect_uri;
    const callback = typeof raw === "string" ? checkRedirectUri(raw) : undefined;
    if (callback?.ok === true) pageLocals(response).formActionOrigins = [callback.origin];
    next();
  };

  router.get(
    LOGIN_PATH,
    allowCallbackInForms,
    ...web.page,
    async (request: Request, response: Response) => {
      const parameters = await checkedOrRefused(request.query as Record<string, unknown>);
      const session = requireSession(request, response);
      if (session === undefined) return;
      await requireActiveAccount(services, session.accountId);
      if (await consents.isUsed(parameters.state)) throw consentUsed();
      const csrfToken = web.csrfToken(request, response);
      const source =
        parameters.source === undefined ? "not stated" : SOURCE_LABELS[parameters.source];
      sendPage(request, response, {
        title: "Create a key for your tool?",
        csrfToken,
        body: html`<p>A program on this computer asks for a new API key for <strong>${session.email}</strong>'s account.
        The key is created only if you approve, and it is sent encrypted to that program; this page never shows it.</p>
        <table>
          <tr><th>Key name</th><td id="key-name">${parameters.name ?? defaultKeyName(parameters.source)}</td></tr>
          <tr><th>Requested by</th><td id="source">${source}</td></tr>
          <tr><th>Sent to</th><td id="callback"><code>${parameters.callbackHostPort}</code> on this computer</td></tr>
        </table>
        <p class="muted">Approve only if you just started a login from your own terminal or coding agent.</p>
        <div class="actions">${consentForm(parameters, csrfToken, "approve")}${consentForm(parameters, csrfToken, "deny")}</div>`,
      });
    },
  );

  router.post(LOGIN_PATH, ...web.page, async (request: Request, response: Response) => {
    const form = (request.body ?? {}) as Record<string, unknown>;
    const parameters = await checkedOrRefused(form);
    const session = requireSession(request, response);
    if (session === undefined) return;
    const decision = form.decision;
    const consent = { state: parameters.state, accountId: session.accountId };
    if (decision === "deny") {
      if (!(await consents.deny(consent))) throw consentUsed();
      services.logger.info({ source: parameters.source ?? null }, "browser login denied");
      response.redirect(
        303,
        callbackUrl(parameters, { state: parameters.state, error: LOGIN_DENIED_ERROR }),
      );
      return;
    }
    if (decision !== "approve") throw new PageError(400, "Choose Approve or Deny.");
    await requireActiveAccount(services, session.accountId);
    await requireRoomForKey(services, session.accountId);
    const name = parameters.name ?? defaultKeyName(parameters.source);
    const created = await consents.approveOnce(consent, async (transaction) => {
      const made = await services.keys.create(session.accountId, name, transaction);
      return { result: made, keyId: made.record.id };
    });
    if (created === undefined) throw consentUsed();
    const { record, key } = created;
    const encrypted = await encryptApiKey(key, parameters.recipient.key);
    services.logger.info(
      {
        keyId: record.id,
        masked: record.masked,
        accountId: session.accountId,
        source: parameters.source ?? null,
        callback: parameters.callbackHostPort,
      },
      "key created by browser login; sent encrypted to the callback",
    );
    response.redirect(
      303,
      callbackUrl(parameters, { state: parameters.state, encrypted_api_key: encrypted }),
    );
  });

  router.use(createPageErrorHandler(services.logger));
  return router;
}
