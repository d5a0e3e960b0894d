import { type Command, CommanderError, Option } from "commander";
import { cleanText, volumeLabel } from "../applications/application-fields.js";
import { approvalMail, personaReadyMail, rejectionMail } from "../applications/application-mail.js";
import {
  type Application,
  type ApplicationStatus,
  ApplicationStore,
} from "../applications/application-store.js";
import { createMailer, type OutgoingMail } from "../playground/mailer.js";
import type { Services } from "../services.js";
import { type AdminOutput, textTable } from "./admin-output.js";
import { operatorName } from "./persona-version-commands.js";
import { terminalJson, terminalText } from "./terminal-text.js";

const STATUSES: readonly ApplicationStatus[] = ["unconfirmed", "in_review", "approved", "rejected"];
/** Longest approval note or rejection reason, in characters. */
const DECISION_TEXT_LIMIT = 2000;

type ApplicationServices = Pick<Services, "config" | "logger" | "database">;

function when(iso: string | null): string {
  return iso === null ? "—" : `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * The site origin for links in mail sent by a command: `PERSONA_PUBLIC_URL`,
 * else the address the service listens on by its configuration (as its
 * start-up writes SERVICE_BASE_URL), with a warning.
 */
function mailOrigin(services: ApplicationServices, warn: (text: string) => void): string {
  const { PERSONA_PUBLIC_URL, PERSONA_HOST, PERSONA_PORT } = services.config;
  if (PERSONA_PUBLIC_URL !== undefined) return PERSONA_PUBLIC_URL.replace(/\/+$/u, "");
  const host = PERSONA_HOST.includes(":") ? `[${PERSONA_HOST}]` : PERSONA_HOST;
  const origin = `http://${host}:${PERSONA_PORT}`;
  warn(`PERSONA_PUBLIC_URL is not set: links in the mail point at ${origin}`);
  return origin;
}

/**
 * Sends a mail from a command: through SMTP, or (without it) as a line on
 * standard error. A mail that cannot be sent is reported, not thrown: the
 * transition it tells of is committed already.
 */
async function sendFromCommand(
  services: ApplicationServices,
  output: AdminOutput,
  mail: OutgoingMail,
): Promise<void> {
  const mailer = createMailer(services.config, services.logger, (line) =>
    output.error(terminalText(line)),
  );
  try {
    await mailer.send(mail);
    if (mailer.delivers) output.error(`mail "${mail.subject}" sent to ${terminalText(mail.to)}`);
  } catch (error) {
    output.error(
      `could not send "${mail.subject}" to ${terminalText(mail.to)}: ${terminalText((error as Error).message)}; tell the applicant yourself`,
    );
  }
}

function describeApplication(application: Application) {
  return { ...application, expectedVolumeLabel: volumeLabel(application.expectedVolume) };
}

function applicationText(
  application: Application,
  events: Awaited<ReturnType<ApplicationStore["events"]>>,
): string {
  const indent = (text: string) => terminalText(text, true).replace(/\n/gu, "\n    ");
  return [
    `application ${application.id}`,
    `  status:    ${application.status}`,
    `  e-mail:    ${terminalText(application.email)}`,
    `  name:      ${terminalText(application.name)}`,
    `  company:   ${terminalText(application.company)}`,
    `  volume:    ${volumeLabel(application.expectedVolume)}`,
    `  consent:   ${application.contactConsent ? "yes, may be contacted" : "no"}`,
    `  applied:   ${when(application.createdAt)}`,
    `  confirmed: ${when(application.confirmedAt)}`,
    `  account:   ${application.accountId ?? "—"}`,
    "  for:",
    `    ${indent(application.purpose)}`,
    "  history:",
    ...events.map(
      (event) =>
        `    ${when(event.at)}  ${event.fromStatus ?? "—"} → ${event.toStatus}  by ${terminalText(event.actor)}${
          event.note === null ? "" : `: ${terminalText(event.note)}`
        }`,
    ),
  ].join("\n");
}

function decisionText(text: string, what: string): string {
  const cleaned = cleanText(text, true);
  if (cleaned === "") throw new CommanderError(1, "application.text", `${what} must not be empty`);
  if ([...cleaned].length > DECISION_TEXT_LIMIT) {
    throw new CommanderError(
      1,
      "application.text",
      `${what} must be at most ${DECISION_TEXT_LIMIT} characters`,
    );
  }
  return cleaned;
}

function notInReview(application: Application): CommanderError {
  const answered =
    application.status === "approved" || application.status === "rejected"
      ? ` (by ${terminalText(application.decidedBy ?? "—")} at ${when(application.decidedAt)})`
      : " (its address is not confirmed yet)";
  return new CommanderError(
    1,
    "application.answered",
    `application ${application.id} is ${application.status}${answered}; nothing changed`,
  );
}

/**
 * Adds `persona-admin application …`, the review of access applications
 * (docs/API.md §1.6; docs/OPERATIONS.md "Review access applications"):
 *
 * - `application list [--status <status>] [--json]`: oldest first
 * - `application show <id> [--json]`: the fields and every transition
 * - `application approve <id> [--note <text>]`: creates the account, allows the
 *   applicant's address for the playground, mails the approval with the
 *   onboarding booking link (`PERSONA_ONBOARDING_BOOKING_URL`)
 * - `application reject <id> --reason <text>`: mails the reason
 *
 * An application is answered once: a second approve or reject changes
 * nothing and exits 1. Applicant text is printed with control characters
 * escaped (terminal-text.ts).
 */
export function addApplicationCommands(
  program: Command,
  services: ApplicationServices,
  output: AdminOutput,
): void {
  // `services` is opened only when a command runs (cli.ts).
  const store = () => new ApplicationStore(services.database);
  const require = async (id: string) => {
    const found = await store().find(id);
    if (found === undefined) {
      throw new CommanderError(
        1,
        "application.unknown",
        `no application with ID ${terminalText(id)}`,
      );
    }
    return found;
  };
  const application = program
    .command("application")
    .description("review access applications (from /apply)");

  application
    .command("list")
    .addOption(
      new Option("--status <status>", "only applications of this status").choices(STATUSES),
    )
    .option("--json", "print JSON")
    .description("list applications, oldest first")
    .action(async (options: { status?: ApplicationStatus; json?: boolean }) => {
      const found = await store().list(options.status);
      if (options.json === true) {
        output.out(terminalJson(found.map(describeApplication)));
        return;
      }
      if (found.length === 0) {
        output.out("no applications");
        return;
      }
      output.out(
        textTable(
          ["id", "status", "applied", "e-mail", "company", "volume"],
          found.map((item) => [
            item.id,
            item.status,
            when(item.createdAt),
            terminalText(item.email),
            terminalText(item.company),
            item.expectedVolume,
          ]),
        ),
      );
    });

  application
    .command("show")
    .argument("<id>")
    .option("--json", "print JSON")
    .description("show an application and its history")
    .action(async (id: string, options: { json?: boolean }) => {
      const found = await require(id);
      const events = await store().events(id);
      output.out(
        options.json === true
          ? terminalJson({ ...describeApplication(found), events })
          : applicationText(found, events),
      );
    });

  application
    .command("approve")
    .argument("<id>")
    .option("--note <text>", "a note kept with the approval (not mailed)")
    .description(
      "approve an application in review: creates the account, allows the address for the playground, mails the next step",
    )
    .action(async (id: string, options: { note?: string }) => {
      const note = options.note === undefined ? null : decisionText(options.note, "--note");
      const outcome = await store().approve(id, {
        operator: operatorName() ?? "operator",
        note,
      });
      if (outcome.kind === "unknown") await require(id);
      if (outcome.kind === "not_in_review") throw notInReview(outcome.application);
      if (outcome.kind !== "decided") return;
      const approved = outcome.application;
      const bookingUrl = services.config.PERSONA_ONBOARDING_BOOKING_URL;
      if (bookingUrl === undefined) {
        output.error(
          "PERSONA_ONBOARDING_BOOKING_URL is not set: the mail says you write to arrange the onboarding call",
        );
      }
      await sendFromCommand(
        services,
        output,
        approvalMail(approved, mailOrigin(services, output.error), bookingUrl),
      );
      output.out(
        `application ${approved.id} approved: account ${approved.accountId}; ${terminalText(approved.email)} may sign in to the playground`,
      );
      output.error(
        `after the onboarding call: persona-admin persona create --account ${approved.accountId} --file <persona.json> (the persona ID is mailed to the applicant)`,
      );
    });

  application
    .command("reject")
    .argument("<id>")
    .requiredOption("--reason <text>", "why, mailed to the applicant")
    .description("reject an application in review; the reason is mailed to the applicant")
    .action(async (id: string, options: { reason: string }) => {
      const reason = decisionText(options.reason, "--reason");
      const outcome = await store().reject(id, { operator: operatorName() ?? "operator", reason });
      if (outcome.kind === "unknown") await require(id);
      if (outcome.kind === "not_in_review") throw notInReview(outcome.application);
      if (outcome.kind !== "decided") return;
      await sendFromCommand(services, output, rejectionMail(outcome.application, reason));
      output.out(`application ${outcome.application.id} rejected`);
    });
}

/**
 * After `persona create`: when the account was made by approving an
 * application, mails the applicant the new persona's name and ID with the
 * next steps (docs/API.md §1.6 "the persona ID is handed over"). Accounts
 * made otherwise (`account create`) get no mail.
 */
export async function mailPersonaToApplicant(
  services: ApplicationServices,
  output: AdminOutput,
  persona: { id: string; name: string; accountId: string },
): Promise<void> {
  const application = await new ApplicationStore(services.database).findByAccount(
    persona.accountId,
  );
  if (application?.status !== "approved") return;
  await sendFromCommand(
    services,
    output,
    personaReadyMail(application.email, persona, mailOrigin(services, output.error)),
  );
}
