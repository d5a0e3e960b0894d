import { Router } from "express";
import { html } from "../pages/html.js";
import { csrfField, sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { requireSession } from "../pages/require-session.js";
import { pageLocals, type WebSupport } from "../pages/web-support.js";
import type { SessionStore } from "./session-store.js";

function when(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * Session management: `GET /sessions` lists the person's live sessions,
 * `POST /sessions/:id/revoke` ends one (any browser), `POST /sign-out` ends
 * this one. All state changes are CSRF-protected POSTs.
 */
export function createSessionRouter(web: WebSupport<SessionStore>): Router {
  const router = Router();

  router.post("/sign-out", ...web.page, async (_request, response) => {
    const session = pageLocals(response).session;
    if (session !== undefined) await web.sessions.revoke(session.id, session.email);
    web.clearSessionCookie(response);
    response.redirect(303, "/sign-in");
  });

  router.get("/sessions", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const csrfToken = web.csrfToken(request, response);
    const sessions = await web.sessions.listForEmail(session.email);
    const rows = sessions.map(
      (entry) => html`<tr>
        <td data-label="Browser"><span>${entry.id === session.id ? html`<strong>this browser</strong>` : ""} <span class="muted">${entry.userAgent ?? "unknown browser"}</span></span></td>
        <td data-label="Signed in">${when(entry.createdAt)}</td>
        <td data-label="Last seen">${when(entry.lastSeenAt)}</td>
        <td data-label="Expires">${when(entry.expiresAt)}</td>
        <td class="actions-cell"><form method="post" action="/sessions/${entry.id}/revoke">${csrfField(csrfToken)}<button type="submit">Revoke</button></form></td>
      </tr>`,
    );
    sendPage(request, response, {
      title: "Sessions",
      csrfToken,
      body: html`<p>Browsers signed in as <strong>${session.email}</strong>. Revoke any you do not recognize.</p>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Your sessions"><table class="middle stacked"><thead><tr><th>Browser</th><th>Signed in</th><th>Last seen</th><th>Expires</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${rows}</tbody></table></div>`,
    });
  });

  router.post("/sessions/:id/revoke", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const id = String(request.params.id);
    if (!(await web.sessions.revoke(id, session.email))) {
      throw new PageError(404, "No such session, or it has already ended.");
    }
    if (id === session.id) {
      web.clearSessionCookie(response);
      response.redirect(303, "/sign-in");
      return;
    }
    response.redirect(303, "/sessions");
  });

  return router;
}
