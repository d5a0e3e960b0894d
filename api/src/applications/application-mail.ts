import type { OutgoingMail } from "../playground/mailer.js";
import type { Application } from "./application-store.js";

// Every mail of the access applications (docs/API.md §1.6), in one place.
// Each link is absolute, built on the service's public origin
// (PERSONA_PUBLIC_URL, written to `.env` as SERVICE_BASE_URL). Applicant
// text is put in plain-text mail only, never in a subject line.

/** How long a review usually takes, for the texts (docs/API.md §1.6). */
export const REVIEW_DAYS = "2–5 days";

/** The example app's step, for mail and the account page. */
export const EXAMPLE_APP_STEP =
  "Clone the example app (the example-app folder of the Persona Reply repository) and put your key and persona ID in its .env";

/**
 * A plain-text mail: "Hello," and a blank line, then `body` (a `false`
 * line is left out, for lines that depend on a condition).
 */
function mail(
  to: string,
  subject: string,
  body: Array<string | false>,
  consoleLine: string,
): OutgoingMail {
  const text = ["Hello,", "", ...body].filter((line) => line !== false).join("\n");
  return { to, subject, text, consoleLine };
}

/** The mail with the link that confirms the applicant's address. */
export function confirmationMail(to: string, link: string, expiresInHours: number): OutgoingMail {
  return mail(
    to,
    "Confirm your Persona Reply application",
    [
      "thank you for applying for the Persona Reply beta. Confirm that this address is yours,",
      "and your application enters review:",
      "",
      link,
      "",
      `The link works once and expires in ${expiresInHours} hours. A review usually takes ${REVIEW_DAYS};`,
      "we write to this address with the answer.",
      "If you did not apply, ignore this mail: without the confirmation nothing happens.",
    ],
    `APPLICATION CONFIRMATION LINK for ${to}: ${link}`,
  );
}

/** What an application's status means for the applicant, one sentence. */
export function statusSentence(application: Application): string {
  switch (application.status) {
    case "unconfirmed":
      return "Your application waits for you to confirm your address with the link we sent.";
    case "in_review":
      return `Your application is in review since ${application.confirmedAt?.slice(0, 10) ?? "its confirmation"}; a review usually takes ${REVIEW_DAYS}.`;
    case "approved":
      return `Your application was approved on ${application.decidedAt?.slice(0, 10) ?? "—"}.`;
    case "rejected":
      return `Your application was declined on ${application.decidedAt?.slice(0, 10) ?? "—"}.`;
  }
}

/**
 * The mail to an address that applied and confirmed already, when it applies
 * again: its status, no second application.
 */
export function statusMail(application: Application, baseUrl: string): OutgoingMail {
  return mail(
    application.email,
    "Your Persona Reply application",
    [
      "someone (probably you) applied again for the Persona Reply beta with this address.",
      "There is one application per address, and yours exists already:",
      "",
      statusSentence(application),
      "",
      application.status === "approved" && `Sign in: ${baseUrl}/sign-in`,
      application.status === "rejected" && "Questions about the decision? Reply to this mail.",
    ],
    `APPLICATION STATUS for ${application.email}: ${application.status}`,
  );
}

/** The approval: the account exists, the address may sign in, and the next step is the onboarding call. */
export function approvalMail(
  application: Application,
  baseUrl: string,
  bookingUrl: string | undefined,
): OutgoingMail {
  const booking =
    bookingUrl === undefined
      ? "We write to you shortly to arrange it."
      : `Book it here: ${bookingUrl}`;
  return mail(
    application.email,
    "Your Persona Reply application is approved",
    [
      "your application for the Persona Reply beta is approved.",
      "",
      "Next step: a 30-minute onboarding call, in which we design your persona together.",
      booking,
      "",
      `This address may now sign in to the playground: ${baseUrl}/sign-in`,
      "After the call, your persona and its ID appear there, and we mail you the ID.",
    ],
    `APPLICATION APPROVED mail to ${application.email}; next step: ${bookingUrl ?? "(no PERSONA_ONBOARDING_BOOKING_URL: arrange the call by mail)"}`,
  );
}

/** The rejection, with the operator's reason. */
export function rejectionMail(application: Application, reason: string): OutgoingMail {
  return mail(
    application.email,
    "Your Persona Reply application",
    [
      "thank you for applying for the Persona Reply beta. We cannot offer you access at this time:",
      "",
      reason,
      "",
      "Questions about the decision? Reply to this mail.",
    ],
    `APPLICATION REJECTED mail to ${application.email}`,
  );
}

/** The persona made at onboarding: its name, its ID, and what to do with it. */
export function personaReadyMail(
  to: string,
  persona: { id: string; name: string },
  baseUrl: string,
): OutgoingMail {
  return mail(
    to,
    "Your Persona Reply persona is ready",
    [
      `your persona ${persona.name} is ready. Its persona ID:`,
      "",
      persona.id,
      "",
      "Next steps:",
      `1. Sign in and create an API key: ${baseUrl}/keys`,
      `2. Try the persona in the playground: ${baseUrl}/playground`,
      `3. Read the API reference: ${baseUrl}/docs`,
      `4. ${EXAMPLE_APP_STEP}.`,
    ],
    `PERSONA READY mail to ${to}: persona ID ${persona.id}`,
  );
}
