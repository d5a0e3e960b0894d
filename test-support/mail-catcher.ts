import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

// A local SMTP server (the smtp-server package) on a loopback port that keeps
// every message it receives: the real protocol, so the service's nodemailer
// transport is exercised end to end. A test double for a mail provider.

/** A message received by the catcher. */
export interface CaughtMail {
  from: string;
  to: string[];
  /** The whole message as sent (headers and body). */
  raw: string;
  /** The body with quoted-printable soft breaks and escapes undone, for searching. */
  text: string;
}

/** A running mail catcher. */
export interface MailCatcher {
  /** SMTP URL for PERSONA_SMTP_URL, e.g. `smtp://127.0.0.1:40123`. */
  url: string;
  messages: CaughtMail[];
  /** Resolves with the next (or an already received, not yet taken) mail to an address. */
  nextMailTo(address: string, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/gu, "")
    .replace(/=([0-9A-F]{2})/gu, (_match, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
}

/** Starts a mail catcher on 127.0.0.1 with a random port (no TLS, no authentication). */
export async function startMailCatcher(): Promise<MailCatcher> {
  const messages: CaughtMail[] = [];
  const taken = new Set<CaughtMail>();
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        raw += chunk;
      });
      stream.on("end", () => {
        const envelope = session.envelope;
        messages.push({
          from: envelope.mailFrom === false ? "" : envelope.mailFrom.address,
          to: envelope.rcptTo.map((recipient) => recipient.address),
          raw,
          text: decodeQuotedPrintable(raw),
        });
        for (const wake of waiters.splice(0)) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;

  function take(address: string): CaughtMail | undefined {
    const found = messages.find((mail) => !taken.has(mail) && mail.to.includes(address));
    if (found !== undefined) taken.add(found);
    return found;
  }

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    nextMailTo(address, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no mail to ${address} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          const mail = take(address);
          if (mail === undefined) {
            waiters.push(check);
            return;
          }
          clearTimeout(timer);
          resolve(mail);
        };
        check();
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The sign-in link in a caught mail. */
export function signInLinkIn(mail: CaughtMail): string {
  const match = /https?:\/\/\S+\/sign-in\/verify\?token=[\w-]+/u.exec(mail.text);
  if (match === null) throw new Error("the mail holds no sign-in link");
  return match[0];
}
