import { createHash } from "node:crypto";
import { type Request, type Response, Router } from "express";
import { html, type SafeHtml } from "../pages/html.js";
import { csrfField, sendPage } from "../pages/layout.js";
import { PageError } from "../pages/page-errors.js";
import { formField, type WebSupport } from "../pages/web-support.js";
import type { Mailer, OutgoingMail } from "../playground/mailer.js";
import type { RateLimiter } from "../rate-limits/rate-limiter.js";
import type { RateLimits } from "../storage/rate-limit-buckets.js";
import {
  APPLICATION_FIELD_LIMITS,
  type ApplicationInput,
  checkApplication,
  EXPECTED_VOLUMES,
  volumeLabel,
} from "./application-fields.js";
import { confirmationMail, REVIEW_DAYS, statusMail } from "./application-mail.js";
import { ApplicationStore, CONFIRMATION_LINK_LIFETIME_MS } from "./application-store.js";

/** Applications one client (network address) may send: 5 a minute, 20 an hour, 50 a day. */
export const APPLY_CLIENT_LIMITS: RateLimits = { minute: 5, hour: 20, day: 50 };
/**
 * Applications for one e-mail address, from any client: 3 a minute, 6 an
 * hour, 12 a day. Each sends a mail to the address, so this bounds the mail
 * a stranger can make it receive.
 */
export const APPLY_ADDRESS_LIMITS: RateLimits = { minute: 3, hour: 6, day: 12 };

const CONFIRMATION_HOURS = CONFIRMATION_LINK_LIFETIME_MS / 3_600_000;

function hashed(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

const EMPTY_INPUT: ApplicationInput = {
  email: "",
  name: "",
  company: "",
  purpose: "",
  expectedVolume: "",
  contactConsent: "",
};

/** The form's fields as sent, each cut to a length worth showing again. */
function readInput(request: Request): ApplicationInput {
  const field = (name: string, limit: number) => (formField(request, name) ?? "").slice(0, limit);
  return {
    email: field("email", APPLICATION_FIELD_LIMITS.email * 2),
    name: field("name", APPLICATION_FIELD_LIMITS.name * 2),
    company: field("company", APPLICATION_FIELD_LIMITS.company * 2),
    purpose: field("purpose", APPLICATION_FIELD_LIMITS.purpose * 2),
    expectedVolume: field("expected_volume", 40),
    contactConsent: field("contact_consent", 10),
  };
}

function problem(text: string | undefined): SafeHtml | "" {
  return text === undefined ? "" : html` <span class="field-error">(${text})</span>`;
}

function applyForm(
  csrfToken: string,
  input: ApplicationInput,
  problems: Partial<Record<keyof ApplicationInput, string>> = {},
): SafeHtml {
  const limits = APPLICATION_FIELD_LIMITS;
  return html`<form method="post" action="/apply" class="apply-form">
    ${csrfField(csrfToken)}
    <p><label>E-mail address${problem(problems.email)}<br>
      <input type="email" name="email" required maxlength="${limits.email}" autocomplete="email" value="${input.email}"></label></p>
    <p><label>Your name${problem(problems.name)}<br>
      <input type="text" name="name" required maxlength="${limits.name}" autocomplete="name" value="${input.name}"></label></p>
    <p><label>Company${problem(problems.company)}<br>
      <input type="text" name="company" required maxlength="${limits.company}" autocomplete="organization" value="${input.company}"></label></p>
    <p><label>What is the persona for?${problem(problems.purpose)}<br>
      <textarea name="purpose" required maxlength="${limits.purpose}" rows="5">${input.purpose}</textarea></label></p>
    <p><label>Expected volume${problem(problems.expectedVolume)}<br>
      <select name="expected_volume" required>
        <option value="">Choose…</option>
        ${EXPECTED_VOLUMES.map(
          (volume) =>
            html`<option value="${volume.value}"${input.expectedVolume === volume.value ? html` selected` : ""}>${volume.label}</option>`,
        )}
      </select></label></p>
    <p><label><input type="checkbox" name="contact_consent" value="yes" required${input.contactConsent === "yes" ? html` checked` : ""}>
      You may contact me by e-mail about this application and the onboarding call.</label>${problem(problems.contactConsent)}</p>
    <p><button type="submit">Apply</button></p>
  </form>`;
}

const JOURNEY = html`<ol>
    <li>You apply here, and confirm your address with the link we mail you.</li>
    <li>We review the application: usually within ${REVIEW_DAYS}. We write to you with the answer.</li>
    <li>Approved, you book a 30-minute onboarding call, in which we design your persona together.
      Your address may then sign in to the playground, and you get the persona's ID.</li>
  </ol>`;

/**
 * The access application (docs/API.md §1.6): `GET /apply` (the form, no
 * script), `POST /apply` (checked, limited per client and per address,
 * stored; a confirmation link mailed), `GET /apply/confirm` (what is being
 * confirmed; a mail scanner following the link changes nothing) and
 * `POST /apply/confirm` (the application enters review). The answer to
 * `POST /apply` is the same whether or not the address applied before, so
 * the page tells nobody who applied; an address that applied and confirmed
 * already gets the status of its application by mail, not a second one.
 */
export function createApplyRouter(web: WebSupport, mailer: Mailer, limiter: RateLimiter): Router {
  const { services } = web;
  const applications = new ApplicationStore(services.database);
  const router = Router();

  const send = (mail: OutgoingMail) => {
    // Not awaited: the answer does not wait for the mail server, nor tell by its timing.
    mailer
      .send(mail)
      .catch((error: unknown) =>
        services.logger.error({ err: error }, "could not send an application mail"),
      );
  };

  const limited = async (bucket: string, limits: RateLimits) => {
    const decision = await limiter.consume(bucket, limits);
    if (!decision.allowed) {
      const retryAfter = decision.retryAfterSeconds ?? 60;
      throw new PageError(
        429,
        `Too many applications. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
        { "Retry-After": String(retryAfter) },
      );
    }
  };

  router.get("/apply", ...web.page, (request, response) => {
    const csrfToken = web.csrfToken(request, response);
    sendPage(request, response, {
      title: "Apply for access",
      csrfToken,
      body: html`<p>Persona Reply is in an early-access beta: access is by application and approval.
        How it goes:</p>
        ${JOURNEY}
        ${applyForm(csrfToken, EMPTY_INPUT)}`,
    });
  });

  router.post("/apply", ...web.page, async (request: Request, response: Response) => {
    const client = request.socket.remoteAddress ?? "unknown";
    await limited(`apply:client:${hashed(client)}`, APPLY_CLIENT_LIMITS);
    const input = readInput(request);
    const checked = checkApplication(input);
    if (!checked.ok) {
      sendPage(request, response, {
        title: "Apply for access",
        status: 400,
        body: html`<p class="notice error">Please correct the marked fields.</p>${applyForm(
          web.csrfToken(request, response),
          input,
          checked.problems,
        )}`,
      });
      return;
    }
    const { fields } = checked;
    await limited(`apply:address:${hashed(fields.email)}`, APPLY_ADDRESS_LIMITS);
    const outcome = await applications.submit(fields);
    const origin = web.origin(request);
    if (outcome.kind === "exists") {
      send(statusMail(outcome.application, origin));
    } else {
      const link = `${origin}/apply/confirm?token=${outcome.token}`;
      send(confirmationMail(fields.email, link, CONFIRMATION_HOURS));
    }
    services.logger.info(
      { application: outcome.application.id, outcome: outcome.kind },
      "access application received",
    );
    sendPage(request, response, {
      title: "Check your e-mail",
      body: html`<p class="notice">Thank you. We sent a mail to <strong>${fields.email}</strong>.</p>
        <p>What happens next:</p>
        <ol>
          <li>Open the link in that mail within ${CONFIRMATION_HOURS} hours to confirm your address.
            Only then does the application enter review.</li>
          <li>We review it, usually within ${REVIEW_DAYS}, and write to you with the answer.</li>
          <li>Approved, you book a 30-minute onboarding call; there we design your persona, allow
            your address for the playground and give you the persona's ID.</li>
        </ol>
        <p class="muted">If this address applied before, the mail tells you the status of that
          application instead: there is one application per address.</p>
        ${mailer.delivers ? "" : html`<p class="muted" id="no-mail">This service has no mail server configured: the mail is printed on the console of the service instead.</p>`}`,
    });
  });

  const deadLink = () =>
    new PageError(
      400,
      "This confirmation link does not work anymore: it was used already, it expired, or it was cut short. Apply again to get a new one.",
    );

  router.get("/apply/confirm", ...web.page, async (request, response) => {
    const token = typeof request.query.token === "string" ? request.query.token : "";
    const application = token === "" ? undefined : await applications.peekConfirmation(token);
    if (application === undefined) throw deadLink();
    sendPage(request, response, {
      title: "Confirm your application",
      body: html`<p>Confirm that <strong>${application.email}</strong> is yours, and send this
        application to review:</p>
        <dl class="application">
          <dt>Name</dt><dd>${application.name}</dd>
          <dt>Company</dt><dd>${application.company}</dd>
          <dt>The persona is for</dt><dd class="pre-line">${application.purpose}</dd>
          <dt>Expected volume</dt><dd>${volumeLabel(application.expectedVolume)}</dd>
        </dl>
        <form method="post" action="/apply/confirm">
          ${csrfField(web.csrfToken(request, response))}
          <input type="hidden" name="token" value="${token}">
          <button type="submit">Confirm</button>
        </form>`,
    });
  });

  router.post("/apply/confirm", ...web.page, async (request, response) => {
    const token = formField(request, "token") ?? "";
    const application = token === "" ? undefined : await applications.confirm(token);
    if (application === undefined) throw deadLink();
    services.logger.info({ application: application.id }, "access application confirmed");
    sendPage(request, response, {
      title: "Application in review",
      body: html`<p class="notice">Thank you: <strong>${application.email}</strong> is confirmed, and your
        application is in review.</p>
        <p>A review usually takes ${REVIEW_DAYS}. We write to this address with the answer; approved,
        the mail has the link to book your onboarding call.</p>`,
    });
  });

  return router;
}
