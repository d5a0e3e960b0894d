import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { redirectUriMatches } from "@modelcontextprotocol/sdk/server/auth/handlers/authorize.js";
import { type Request, type RequestHandler, type Response, Router } from "express";
import { html } from "../pages/html.js";
import { csrfField, sendPage } from "../pages/layout.js";
import { createPageErrorHandler, PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import { formField, pageLocals, type WebSupport } from "../pages/web-support.js";
import { requireActiveAccount } from "../playground/account-access.js";
import { isUrlClientId } from "./client-id-url.js";
import { REMOTE_MCP_PATH } from "./oauth-endpoints.js";
import { CONSENT_PATH } from "./oauth-provider.js";

/** An authorization request as the consent page carries it, checked. */
interface ConsentRequest {
  clientId: string;
  clientName: string;
  /**
   * The host serving the client's metadata document, for a URL client ID:
   * its name is self-asserted, the host is what the person can check.
   */
  documentHost: string | undefined;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  state: string | undefined;
}

const FIELDS = ["client_id", "redirect_uri", "code_challenge", "resource", "state"] as const;

function valuesOf(request: Request): Record<(typeof FIELDS)[number], string | undefined> {
  const source = (request.method === "POST" ? request.body : request.query) as Record<
    string,
    unknown
  >;
  const pick = (name: string) => (typeof source?.[name] === "string" ? source[name] : undefined);
  return {
    client_id: pick("client_id"),
    redirect_uri: pick("redirect_uri"),
    code_challenge: pick("code_challenge"),
    resource: pick("resource"),
    state: pick("state"),
  };
}

/**
 * Checks the authorization request again (the consent page is reachable
 * directly): a registered client (or a URL client ID whose metadata
 * document passes its checks), one of its redirect URIs (RFC 8252 §7.3:
 * any port on loopback), an S256 challenge (43 base64url characters) and
 * this origin's `/mcp` as the resource. Never redirects a request that
 * failed these checks.
 *
 * @throws {PageError} 400 naming what is wrong
 */
async function checkedRequest(web: WebSupport, request: Request): Promise<ConsentRequest> {
  const values = valuesOf(request);
  const refuse = (what: string) =>
    new PageError(
      400,
      `This authorization request is not valid: ${what}. Start the connection again from your app.`,
    );
  let client: Awaited<ReturnType<typeof web.services.oauthClients.find>>;
  try {
    client =
      values.client_id === undefined
        ? undefined
        : await web.services.oauthClients.find(values.client_id);
  } catch (error) {
    if (error instanceof OAuthError) throw refuse(error.message);
    throw error;
  }
  if (client === undefined) throw refuse("the client is not registered");
  const redirectUri = values.redirect_uri;
  if (
    redirectUri === undefined ||
    !client.redirect_uris.some((registered) => redirectUriMatches(redirectUri, registered))
  ) {
    throw refuse("redirect_uri is not one the client registered");
  }
  if (values.code_challenge === undefined || !/^[\w-]{43}$/u.test(values.code_challenge)) {
    throw refuse("code_challenge must be a PKCE S256 challenge");
  }
  const resource = `${web.origin(request)}${REMOTE_MCP_PATH}`;
  if (values.resource !== resource) throw refuse(`resource must be ${resource}`);
  return {
    clientId: client.client_id,
    clientName: client.client_name ?? client.client_id,
    documentHost: isUrlClientId(client.client_id) ? new URL(client.client_id).host : undefined,
    redirectUri,
    codeChallenge: values.code_challenge,
    resource,
    state: values.state,
  };
}

function redirectWith(consent: ConsentRequest, values: Record<string, string>): string {
  const url = new URL(consent.redirectUri);
  for (const [name, value] of Object.entries(values)) url.searchParams.set(name, value);
  if (consent.state !== undefined) url.searchParams.set("state", consent.state);
  return url.href;
}

function hiddenFields(consent: ConsentRequest) {
  return html`<input type="hidden" name="client_id" value="${consent.clientId}">
    <input type="hidden" name="redirect_uri" value="${consent.redirectUri}">
    <input type="hidden" name="code_challenge" value="${consent.codeChallenge}">
    <input type="hidden" name="resource" value="${consent.resource}">
    ${consent.state === undefined ? "" : html`<input type="hidden" name="state" value="${consent.state}">`}`;
}

/**
 * The consent page of the OAuth authorization endpoint ({@link CONSENT_PATH}):
 * `GET` sends a visitor who is not signed in through the playground's
 * e-mail sign-in and back, then names the client, its redirect URI and
 * lets the person choose which of the account's personas the app speaks
 * as. Its `POST` (CSRF-checked like every form) approves — an
 * authorization code (60 s, once) to the redirect URI with `state` and
 * `iss` (RFC 9207) — or denies (`error=access_denied`).
 */
export function createConsentRouter(web: WebSupport): Router {
  const { services } = web;
  const router = Router();

  // The approval redirects to the client, and a form's redirect target counts for CSP form-action.
  const allowRedirectInForms: RequestHandler = (request, response, next) => {
    const raw = request.query.redirect_uri;
    if (typeof raw === "string" && URL.canParse(raw)) {
      pageLocals(response).formActionOrigins = [new URL(raw).origin];
    }
    next();
  };

  router.get(CONSENT_PATH, allowRedirectInForms, ...web.page, async (request, response) => {
    const consent = await checkedRequest(web, request);
    const session = requireSession(request, response);
    if (session === undefined) return;
    await requireActiveAccount(services, session.accountId);
    const personas = await services.personas.list(session.accountId);
    if (personas.length === 0) {
      throw new PageError(409, "This account has no persona yet, so there is nothing to connect.");
    }
    const csrfToken = web.csrfToken(request, response);
    const options = personas.map(
      (persona) => html`<option value="${persona.id}">${persona.name} (${persona.id})</option>`,
    );
    sendPage(request, response, {
      title: "Connect an app?",
      csrfToken,
      body: html`<p>An app asks to use Persona Reply as <strong>${session.email}</strong>'s account, through the MCP endpoint. Its calls are billed to this account.</p>
        <table>
          <tr><th>App</th><td id="client-name">${consent.clientName}</td></tr>
          ${
            consent.documentHost === undefined
              ? ""
              : html`<tr><th>Described by</th><td id="client-host"><strong>${consent.documentHost}</strong> <span class="muted">(the app's name above is its own claim; this is the site that publishes it)</span></td></tr>`
          }
          <tr><th>Sends you back to</th><td id="redirect-uri"><code>${consent.redirectUri}</code></td></tr>
        </table>
        <form method="post" action="${CONSENT_PATH}">
          ${csrfField(csrfToken)}
          ${hiddenFields(consent)}
          <label>Persona the app speaks as <select name="persona_id">${options}</select></label>
          <div class="actions">
            <button type="submit" name="decision" value="approve" id="approve">Approve</button>
            <button type="submit" name="decision" value="deny" id="deny">Deny</button>
          </div>
        </form>
        <p class="muted">Approve only if you just connected this app yourself. You can disconnect it on the Keys page at any time.</p>`,
    });
  });

  router.post(CONSENT_PATH, ...web.page, async (request: Request, response: Response) => {
    const consent = await checkedRequest(web, request);
    const session = requireSession(request, response);
    if (session === undefined) return;
    const decision = formField(request, "decision");
    if (decision === "deny") {
      response.redirect(303, redirectWith(consent, { error: "access_denied" }));
      return;
    }
    if (decision !== "approve") throw new PageError(400, "Choose Approve or Deny.");
    await requireActiveAccount(services, session.accountId);
    const personaId = formField(request, "persona_id") ?? "";
    const persona = await services.personas.find(personaId);
    if (persona?.accountId !== session.accountId) {
      throw new PageError(400, "Choose one of this account's personas.");
    }
    const code = await services.oauth.approve({
      clientId: consent.clientId,
      accountId: session.accountId,
      personaId,
      resource: consent.resource,
      redirectUri: consent.redirectUri,
      codeChallenge: consent.codeChallenge,
    });
    services.logger.info(
      { clientId: consent.clientId, accountId: session.accountId, personaId },
      "app connected by OAuth consent",
    );
    // RFC 9207: `iss` as the metadata gives the issuer (the origin with its trailing slash).
    response.redirect(303, redirectWith(consent, { code, iss: new URL(web.origin(request)).href }));
  });

  router.use(createPageErrorHandler(services.logger));
  return router;
}
