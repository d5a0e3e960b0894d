import { Router } from "express";
import type { ApiKeyRecord } from "../keys/key-store.js";
import type { OAuthGrant } from "../oauth/oauth-store.js";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField, sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import { formField, type WebSupport } from "../pages/web-support.js";
import {
  checkKeyName,
  MAX_KEY_NAME_LENGTH,
  requireActiveAccount,
  requireRoomForKey,
} from "./account-access.js";
import { type KeyFlash, KeyFlashStore } from "./key-flash-store.js";

function when(iso: string | null): string {
  return iso === null ? "never" : `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

/** The notice showing keys just created, once, with a Copy button (one key: the usual case). */
function newKeysNotice(created: KeyFlash[]): SafeHtml | undefined {
  if (created.length === 0) return undefined;
  const notices = created.map(
    (flash, index) => html`<div class="notice new-key-notice">
      <p><strong>Key “${flash.name}” created.</strong> Copy it now: it is shown only this once and cannot be shown again.</p>
      <p class="secret"${index === 0 ? html` id="new-key"` : ""}>${flash.key}</p>
      ${index === 0 ? html`<p><button type="button" id="copy-key">Copy</button> <span id="copy-status" class="muted" aria-live="polite"></span></p>` : ""}
    </div>`,
  );
  return html`<div id="new-key-notice">${notices}</div>
    <script src="/playground/assets/keys.js"></script>`;
}

/** The "Connected apps" section: apps approved by OAuth consent for `/mcp`, with a revoke button each. */
function connectedApps(grants: OAuthGrant[], personaNames: Map<string, string>, csrfToken: string) {
  const rows = grants.map(
    (grant) => html`<tr>
      <td data-label="App">${grant.clientName}</td>
      <td data-label="Persona">${personaNames.get(grant.personaId) ?? grant.personaId}</td>
      <td data-label="Connected">${when(grant.createdAt)}</td>
      <td data-label="Last used">${when(grant.lastUsedAt)}</td>
      <td class="actions-cell">${
        grant.revokedAt === null
          ? html`<form method="post" action="/keys/apps/${grant.id}/revoke">${csrfField(csrfToken)}<button type="submit" aria-label="Revoke ${grant.clientName}">Revoke</button></form>`
          : html`<span class="muted">revoked ${when(grant.revokedAt)}</span>`
      }</td>
    </tr>`,
  );
  return html`<h2>Connected apps</h2>
    ${
      grants.length === 0
        ? html`<p class="muted">No apps connected. Apps connect by URL to <code>/mcp</code> and ask for your approval.</p>`
        : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Connected apps"><table class="keys middle stacked"><thead><tr><th>App</th><th>Persona</th><th>Connected</th><th>Last used</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
    }`;
}

function keysBody(keys: ApiKeyRecord[], csrfToken: string, notice?: SafeHtml): SafeHtml {
  const rows = keys.map(
    (key) => html`<tr>
      <td data-label="Name">${key.name}</td>
      <td data-label="Key"><code>${key.masked}</code></td>
      <td data-label="Created">${when(key.createdAt)}</td>
      <td data-label="Last used">${when(key.lastUsedAt)}</td>
      <td class="actions-cell">${
        key.revokedAt === null
          ? html`<form method="post" action="/keys/${key.id}/revoke">${csrfField(csrfToken)}<button type="submit" aria-label="Revoke ${key.name}">Revoke</button></form>`
          : html`<span class="muted">revoked ${when(key.revokedAt)}</span>`
      }</td>
    </tr>`,
  );
  return html`${notice ?? ""}
    <h2>Create a key</h2>
    <form method="post" action="/keys" class="row">
      ${csrfField(csrfToken)}
      <label>Name <input type="text" name="name" required maxlength="${MAX_KEY_NAME_LENGTH}" placeholder="e.g. production server"></label>
      <button type="submit">Create key</button>
    </form>
    <h2>Your keys</h2>
    ${
      keys.length === 0
        ? html`<p class="muted">No keys yet.</p>`
        : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Your keys"><table class="keys middle stacked"><thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
    }
    <p class="muted">Keep keys in environment variables or a secret manager, never in client-side code, and rotate them now and then.</p>`;
}

/**
 * `/keys` (docs/API.md §5.3): create a named key (shown once, with a copy button),
 * list keys (name, `prk_…` and last four, created, last used), revoke.
 * Creating follows post, redirect, get: `POST /keys` keeps the new key as a
 * one-time flash of the session (sealed, see {@link KeyFlashStore}) and
 * redirects to `GET /keys`, which shows it once; reloading that page shows
 * the list and creates nothing.
 */
export function createKeysRouter(web: WebSupport): Router {
  const { services } = web;
  const flashes = new KeyFlashStore(services.database);
  const router = Router();

  router.get("/keys", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const secret = web.sessionSecret(request);
    const created = secret === undefined ? [] : await flashes.take(session.id, secret);
    const csrfToken = web.csrfToken(request, response);
    const keys = await services.keys.list(session.accountId);
    const grants = await services.oauth.listGrants(session.accountId);
    const personaNames = new Map(
      (await services.personas.list(session.accountId)).map((persona) => [
        persona.id,
        persona.name,
      ]),
    );
    sendPage(request, response, {
      title: "API keys",
      csrfToken,
      body: html`${keysBody(keys, csrfToken, newKeysNotice(created))}${connectedApps(grants, personaNames, csrfToken)}`,
    });
  });

  router.post("/keys", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    await requireActiveAccount(services, session.accountId);
    const checked = checkKeyName(formField(request, "name") ?? "");
    if (!checked.ok) throw new PageError(400, `The key name ${checked.reason}.`);
    await requireRoomForKey(services, session.accountId);
    const secret = web.sessionSecret(request);
    if (secret === undefined) throw new PageError(401, "You are not signed in. Sign in again.");
    const { record, key } = await services.keys.create(session.accountId, checked.name);
    services.logger.info(
      { keyId: record.id, masked: record.masked, accountId: session.accountId },
      "key created in the playground",
    );
    await flashes.put(session.id, secret, { name: record.name, key });
    // Post, redirect, get: a reload of the page that shows the key creates no second key.
    response.redirect(303, "/keys");
  });

  router.post("/keys/:id/revoke", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const id = String(request.params.id);
    const owned = (await services.keys.list(session.accountId)).find((key) => key.id === id);
    // Another account's key is answered like a missing one.
    if (owned === undefined || !(await services.keys.revoke(id))) {
      throw new PageError(404, "No such active key.");
    }
    services.logger.info({ keyId: id, masked: owned.masked }, "key revoked in the playground");
    response.redirect(303, "/keys");
  });

  router.post("/keys/apps/:id/revoke", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const id = String(request.params.id);
    const owned = (await services.oauth.listGrants(session.accountId)).find(
      (grant) => grant.id === id,
    );
    // Another account's app is answered like a missing one.
    if (owned === undefined || !(await services.oauth.revokeGrant(id))) {
      throw new PageError(404, "No such connected app.");
    }
    services.logger.info(
      { grantId: id, clientId: owned.clientId },
      "app disconnected in the playground",
    );
    response.redirect(303, "/keys");
  });

  return router;
}
