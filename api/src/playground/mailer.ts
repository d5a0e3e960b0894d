import nodemailer from "nodemailer";
import type { Config } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import { type OperatorConsole, operatorConsoleFor } from "./operator-console.js";

/** A sign-in mail to send. */
export interface SignInMail {
  /** Recipient address. */
  to: string;
  /** The one-time link; a credential until it is used or expires. */
  link: string;
  /** Minutes until the link expires, for the text. */
  expiresInMinutes: number;
}

/** Any other mail of the service (the access applications' mail, applications/application-mail.ts). */
export interface OutgoingMail {
  /** Recipient address. */
  to: string;
  subject: string;
  /** Plain-text body. */
  text: string;
  /**
   * The one plain line printed on the operator's console instead when no
   * SMTP server is configured: what the recipient must act on (a link, a persona ID).
   */
  consoleLine: string;
}

/** Sends the service's mail: the playground's sign-in links and the access applications' mail. */
export interface Mailer {
  /** Whether mail really goes out (SMTP configured), or the link is printed on the console. */
  readonly delivers: boolean;
  /**
   * Sends a sign-in link.
   *
   * @throws the transport's error when the SMTP server refuses or is unreachable
   */
  sendSignInLink(mail: SignInMail): Promise<void>;
  /**
   * Sends a mail, or (without SMTP) prints its console line.
   *
   * @throws the transport's error when the SMTP server refuses or is unreachable
   */
  send(mail: OutgoingMail): Promise<void>;
}

function signInText(mail: SignInMail): string {
  return [
    "Hello,",
    "",
    "use this link to sign in to the Persona Reply playground:",
    "",
    mail.link,
    "",
    `It works once and expires in ${mail.expiresInMinutes} minutes.`,
    "If you did not ask to sign in, ignore this mail; nothing happens without the link.",
  ].join("\n");
}

/**
 * Builds the mailer: SMTP through nodemailer when `PERSONA_SMTP_URL` is set;
 * otherwise (development) each sign-in link is printed on the operator's
 * console as one plain line starting `SIGN-IN LINK`, the only place it
 * appears; the JSON log says a link was printed, without the link (a
 * credential until used).
 *
 * @param operatorConsole - where the plain line goes; standard error unless the log is silent
 */
export function createMailer(
  config: Config,
  logger: Logger,
  operatorConsole: OperatorConsole = operatorConsoleFor(logger),
): Mailer {
  const smtpUrl = config.PERSONA_SMTP_URL;
  if (smtpUrl === undefined) {
    return {
      delivers: false,
      async sendSignInLink(mail) {
        operatorConsole(
          `SIGN-IN LINK for ${mail.to} (no SMTP server configured, so it is printed here; it works once, for ${mail.expiresInMinutes} minutes): ${mail.link}`,
        );
        logger.warn(
          { to: mail.to },
          "no SMTP configured (PERSONA_SMTP_URL): the sign-in link was printed on the console (standard error) instead of mailed",
        );
      },
      async send(mail) {
        operatorConsole(`${mail.consoleLine} (no SMTP server configured, so it is printed here)`);
        logger.warn(
          { to: mail.to, subject: mail.subject },
          "no SMTP configured (PERSONA_SMTP_URL): a mail was printed on the console (standard error) instead of sent",
        );
      },
    };
  }
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    delivers: true,
    async sendSignInLink(mail) {
      await transport.sendMail({
        from: config.PERSONA_MAIL_FROM,
        to: mail.to,
        subject: "Your Persona Reply sign-in link",
        text: signInText(mail),
      });
    },
    async send(mail) {
      await transport.sendMail({
        from: config.PERSONA_MAIL_FROM,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
      });
    },
  };
}
