import { Router } from "express";
import { html, type SafeHtml } from "../pages/html.js";
import { sendPage } from "../pages/layout.js";
import { formatAmount, formatQuantity } from "../pages/number-format.js";
import { requireSession } from "../pages/require-session.js";
import type { WebSupport } from "../pages/web-support.js";
import { EXAMPLE_APP_STEP, statusSentence } from "./application-mail.js";
import { ApplicationStore } from "./application-store.js";

/**
 * `GET /account`, where sign-in lands (docs/API.md §1.6): the account's
 * personas with their IDs, the next steps (a key, the playground, the
 * example app) and what is still pending (the onboarding call while the
 * account has no persona, an empty balance, an account that is not
 * active). It shows the persona's name, ID and version only, never its
 * route (upstreams, models) nor anything else of the operator's.
 */
export function createAccountRouter(web: WebSupport): Router {
  const { services } = web;
  const applications = new ApplicationStore(services.database);
  const router = Router();

  router.get("/account", ...web.page, async (request, response) => {
    const session = requireSession(request, response);
    if (session === undefined) return;
    const [account, personas, keys, application] = await Promise.all([
      services.accounts.find(session.accountId),
      services.personas.list(session.accountId),
      services.keys.list(session.accountId),
      applications.findByAccount(session.accountId),
    ]);
    const activeKeys = keys.filter((key) => key.revokedAt === null).length;
    const bookingUrl = services.config.PERSONA_ONBOARDING_BOOKING_URL;

    const pending: SafeHtml[] = [];
    if (account !== undefined && account.status !== "active") {
      pending.push(
        html`<li>Your account is ${account.status}: its keys and personas do not answer. Write to us to activate it.</li>`,
      );
    }
    if (personas.length === 0) {
      pending.push(
        html`<li>Your persona: it is designed with you at the 30-minute onboarding call. ${
          bookingUrl === undefined
            ? "We write to you to arrange it."
            : html`<a href="${bookingUrl}">Book the call</a> if you have not yet.`
        } Its ID appears here afterwards, and we mail it to you.</li>`,
      );
    }
    if (account !== undefined && account.balanceMicros <= 0) {
      pending.push(
        html`<li>Your balance is ${formatAmount(account.balanceMicros)} ${account.currency}: API requests are refused until it is topped up. Write to us to top it up.</li>`,
      );
    }
    const personaTable =
      personas.length === 0
        ? html`<p class="muted">No persona yet.</p>`
        : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Your personas"><table class="personas stacked"><thead><tr><th>Persona</th><th>Persona ID</th><th>Version</th></tr></thead><tbody>${personas.map(
            (persona) => html`<tr>
              <td data-label="Persona">${persona.name}</td>
              <td data-label="Persona ID"><code class="persona-id">${persona.id}</code></td>
              <td data-label="Version">${persona.version}</td>
            </tr>`,
          )}</tbody></table></div>`;

    sendPage(request, response, {
      title: "Your account",
      csrfToken: web.csrfToken(request, response),
      body: html`${application === undefined ? "" : html`<p class="lead">${statusSentence(application)}</p>`}
        <h2>Your personas</h2>
        ${personaTable}
        <h2>Next steps</h2>
        <ol class="next-steps">
          <li><a href="/keys">Create an API key</a>${
            activeKeys === 0
              ? ": your programs send it with each request."
              : html` (you have ${formatQuantity(activeKeys, "active key", "active keys")}).`
          }</li>
          <li><a href="/playground">Try your persona in the playground</a>.</li>
          <li>${EXAMPLE_APP_STEP}; the <a href="/docs">API reference</a> has every endpoint.</li>
        </ol>
        <h2>Pending</h2>
        ${pending.length === 0 ? html`<p class="muted">Nothing is pending.</p>` : html`<ul class="pending">${pending}</ul>`}`,
    });
  });

  return router;
}
