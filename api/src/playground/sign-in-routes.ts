import { createHash } from "node:crypto";
import { type Request, type Response, Router } from "express";
import { html } from "../pages/html.js";
import { csrfField, sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { safeReturnPath } from "../pages/return-path.js";
import { formField, pageLocals, type WebSupport } from "../pages/web-support.js";
import type { RateLimiter } from "../rate-limits/rate-limiter.js";
import type { RateLimits } from "../storage/rate-limit-buckets.js";
import { AllowedEmailStore, normalizeEmail } from "./allowed-email-store.js";
import type { Mailer } from "./mailer.js";
import type { SessionStore } from "./session-store.js";
import { deliveryNotice, reportRefusedAddress, waitingToolNotice } from "./sign-in-notices.js";
import { SIGN_IN_LINK_LIFETIME_MS, SignInTokenStore } from "./sign-in-token-store.js";

/**
 * Sign-in requests per address from one client (network address): 5 a
 * minute, 20 an hour, 100 a day. Keyed by both, so that a stranger who asks
 * for someone's links uses up only their own allowance, never the owner's.
 */
export const SIGN_IN_ADDRESS_LIMITS: RateLimits = { minute: 5, hour: 20, day: 100 };
/** Sign-in requests per client (network address): 20 an hour, 100 a day. */
export const SIGN_IN_CLIENT_LIMITS: RateLimits = { minute: 20, hour: 20, day: 100 };
/** Where a person lands after sign-in when no return path was given: the account page (personas, next steps). */
export const DEFAULT_LANDING_PATH = "/account";

function hashed(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function signInForm(csrfToken: string, returnTo: string | undefined, email = "") {
  return html`${waitingToolNotice(returnTo)}<p>Enter the e-mail address the operator allowed for the playground. We send a
  sign-in link to it.</p>
  <form method="post" action="/sign-in">
    ${csrfField(csrfToken)}
    ${returnTo === undefined ? "" : html`<input type="hidden" name="return_to" value="${returnTo}">`}
    <p><label>E-mail address <input type="email" name="email" required maxlength="254" autocomplete="email" value="${email}"></label></p>
    <p><button type="submit">Send me a sign-in link</button></p>
  </form>
  <p class="muted">No access yet? <a href="/apply">Apply for access</a>: the beta is by application.</p>`;
}

/**
 * The e-mail sign-in flow (docs/API.md §1.6): `GET /sign-in` (form),
 * `POST /sign-in` (send the link; the same answer whether or not the
 * address is allowed), `GET /sign-in/verify` (confirm page, so that mail
 * scanners following links do not use them up) and `POST /sign-in/verify`
 * (use the link, start the session, go back to where sign-in was asked for).
 */
export function createSignInRouter(
  web: WebSupport<SessionStore>,
  mailer: Mailer,
  limiter: RateLimiter,
): Router {
  const { services } = web;
  const emails = new AllowedEmailStore(services.database);
  const tokens = new SignInTokenStore(services.database);
  const router = Router();

  router.get("/sign-in", ...web.page, (request, response) => {
    const returnTo = safeReturnPath(request.query.return_to);
    if (pageLocals(response).session !== undefined) {
      response.redirect(303, returnTo ?? DEFAULT_LANDING_PATH);
      return;
    }
    sendPage(request, response, {
      title: "Sign in",
      body: signInForm(web.csrfToken(request, response), returnTo),
    });
  });

  router.post("/sign-in", ...web.page, async (request: Request, response: Response) => {
    const returnTo = safeReturnPath(formField(request, "return_to"));
    const typed = formField(request, "email") ?? "";
    const email = normalizeEmail(typed);
    if (email === undefined) {
      sendPage(request, response, {
        title: "Sign in",
        status: 400,
        body: html`<p class="notice error">Enter a valid e-mail address.</p>${signInForm(
          web.csrfToken(request, response),
          returnTo,
          typed.slice(0, 254),
        )}`,
      });
      return;
    }
    // Both limits count every request, allowed address or not, so they reveal nothing either.
    const client = request.socket.remoteAddress ?? "unknown";
    const perClient = await limiter.consume(
      `sign-in:client:${hashed(client)}`,
      SIGN_IN_CLIENT_LIMITS,
    );
    const perAddress = perClient.allowed
      ? await limiter.consume(
          `sign-in:address-client:${hashed(`${email}\n${client}`)}`,
          SIGN_IN_ADDRESS_LIMITS,
        )
      : perClient;
    const retryAfter = Math.max(
      perClient.retryAfterSeconds ?? 0,
      perAddress.retryAfterSeconds ?? 0,
    );
    if (!perClient.allowed || !perAddress.allowed) {
      throw new PageError(
        429,
        `Too many sign-in requests. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
        { "Retry-After": String(retryAfter) },
      );
    }
    const allowed = await emails.find(email);
    if (allowed !== undefined) {
      const { token } = await tokens.issue({
        email,
        accountId: allowed.accountId,
        returnTo: returnTo ?? null,
      });
      const link = `${web.origin(request)}/sign-in/verify?token=${token}`;
      // Not awaited: answering at once keeps allowed and unknown addresses alike in timing too.
      mailer
        .sendSignInLink({
          to: email,
          link,
          expiresInMinutes: SIGN_IN_LINK_LIFETIME_MS / 60_000,
        })
        .catch((error: unknown) =>
          services.logger.error({ err: error }, "could not send the sign-in mail"),
        );
    } else {
      reportRefusedAddress(email, services.logger, mailer);
    }
    sendPage(request, response, {
      title: "Check your e-mail",
      body: html`${waitingToolNotice(returnTo)}<p class="notice">If <strong>${email}</strong> is allowed to use the playground,
        a sign-in link is on its way. It works once, for ${SIGN_IN_LINK_LIFETIME_MS / 60_000} minutes.</p>
        ${deliveryNotice(mailer)}
        <p class="muted">Nothing arrives? Check the address, or ask the operator to allow it.</p>`,
    });
  });

  router.get("/sign-in/verify", ...web.page, async (request, response) => {
    const token = typeof request.query.token === "string" ? request.query.token : "";
    const grant = token === "" ? undefined : await tokens.peek(token);
    if (grant === undefined) {
      throw new PageError(
        400,
        "This sign-in link does not work anymore: it was used already, it expired, or it was cut short. Ask for a new one on the sign-in page.",
      );
    }
    sendPage(request, response, {
      title: "Confirm sign-in",
      body: html`<p>Sign in to the playground as <strong>${grant.email}</strong>?</p>
        <form method="post" action="/sign-in/verify">
          ${csrfField(web.csrfToken(request, response))}
          <input type="hidden" name="token" value="${token}">
          <button type="submit">Continue</button>
        </form>`,
    });
  });

  router.post("/sign-in/verify", ...web.page, async (request, response) => {
    const token = formField(request, "token") ?? "";
    const grant = token === "" ? undefined : await tokens.consume(token);
    // The operator may have withdrawn the address, or moved it, since the link was sent.
    const still = grant === undefined ? undefined : await emails.find(grant.email);
    if (grant === undefined || still?.accountId !== grant.accountId) {
      throw new PageError(
        400,
        "This sign-in link does not work anymore: it was used already, it expired, or the address is no longer allowed. Ask for a new one on the sign-in page.",
      );
    }
    const previous = pageLocals(response).session;
    if (previous !== undefined) await web.sessions.revoke(previous.id, previous.email);
    const { token: secret } = await web.sessions.create({
      accountId: grant.accountId,
      email: grant.email,
      userAgent: request.headers["user-agent"],
    });
    web.setSessionCookie(response, secret);
    response.redirect(303, safeReturnPath(grant.returnTo) ?? DEFAULT_LANDING_PATH);
  });

  return router;
}
