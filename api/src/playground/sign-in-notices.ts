import type { Logger } from "../logging/logger.js";
import { waitingToolLabel } from "../login/source-labels.js";
import { html, type SafeHtml } from "../pages/html.js";
import type { Mailer } from "./mailer.js";
import { type OperatorConsole, operatorConsoleFor } from "./operator-console.js";

/**
 * The notice on the sign-in pages when a tool is waiting behind the sign-in
 * (the return path is the browser login route): "Sign in to approve the key
 * for the Claude Code plugin", named by the login's `source`.
 *
 * @param returnTo - the checked return path of the sign-in
 * @returns the notice, or nothing when no tool is waiting
 */
export function waitingToolNotice(returnTo: string | undefined): SafeHtml | "" {
  const tool = waitingToolLabel(returnTo);
  if (tool === undefined) return "";
  return html`<p class="notice" id="waiting-tool">Sign in to approve the key for ${tool}. After
    sign-in you come back to the approval page.</p>`;
}

/**
 * On the "Check your e-mail" page: where the link went when this service
 * sends no mail. The same for every address, so it tells nothing about
 * which ones are allowed.
 */
export function deliveryNotice(mailer: Mailer): SafeHtml | "" {
  if (mailer.delivers) return "";
  return html`<p class="muted" id="no-mail">This service has no mail server configured: the
    link is printed on the console of the service instead of mailed.</p>`;
}

/**
 * Tells the operator (never the browser, which sees the same answer for
 * every address) that an address that is not allowed asked to sign in: a
 * log line, and without SMTP (a local service) a plain console line with
 * the command that allows it.
 */
export function reportRefusedAddress(
  email: string,
  logger: Logger,
  mailer: Mailer,
  operatorConsole: OperatorConsole = operatorConsoleFor(logger),
): void {
  logger.warn({ email }, "sign-in asked for an address that is not allowed; nothing was sent");
  if (!mailer.delivers) {
    operatorConsole(
      `sign-in asked for ${email}, which is not allowed to sign in, so no link was made. To allow it: npm run admin -- email allow ${email} --account <account ID>`,
    );
  }
}
