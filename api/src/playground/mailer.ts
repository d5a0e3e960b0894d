import nodemailer from "nodemailer";
import type { Config } from "../config/config.js";
import type { Logger } from "../logging/logger.js";

/** A sign-in mail to send. */
export interface SignInMail {
  /** Recipient address. */
  to: string;
  /** The one-time link; a credential until it is used or expires. */
  link: string;
  /** Minutes until the link expires, for the text. */
  expiresInMinutes: number;
}

/** Sends the playground's mail. */
export interface Mailer {
  /** Whether mail really goes out (SMTP configured), or the link only goes to the log. */
  readonly delivers: boolean;
  /**
   * Sends a sign-in link.
   *
   * @throws the transport's error when the SMTP server refuses or is unreachable
   */
  sendSignInLink(mail: SignInMail): Promise<void>;
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
 * otherwise (development) each sign-in link is written to the server log —
 * that log line is the only place it appears.
 */
export function createMailer(config: Config, logger: Logger): Mailer {
  const smtpUrl = config.PERSONA_SMTP_URL;
  if (smtpUrl === undefined) {
    return {
      delivers: false,
      async sendSignInLink(mail) {
        logger.warn(
          { to: mail.to, signInLink: mail.link },
          "no SMTP configured (PERSONA_SMTP_URL): the sign-in link is written here instead of mailed",
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
  };
}
