import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/config.js";
import { createLogger } from "../logging/logger.js";
import { createMailer } from "./mailer.js";
import { operatorConsoleFor, printForOperator } from "./operator-console.js";

describe("the mailer without SMTP (a local service)", () => {
  it("prints the link as one plain, marked line for the operator", async () => {
    const lines: string[] = [];
    const mailer = createMailer(loadConfig({}), createLogger("silent"), (line) => lines.push(line));
    expect(mailer.delivers).toBe(false);
    await mailer.sendSignInLink({
      to: "you@persona.localhost",
      link: "http://127.0.0.1:8787/sign-in/verify?token=abc",
      expiresInMinutes: 15,
    });
    expect(lines).toEqual([
      "SIGN-IN LINK for you@persona.localhost (no SMTP server configured, so it is printed here; it works once, for 15 minutes): http://127.0.0.1:8787/sign-in/verify?token=abc",
    ]);
  });

  it("prints any other mail's console line, marked as printed instead of sent", async () => {
    const lines: string[] = [];
    const mailer = createMailer(loadConfig({}), createLogger("silent"), (line) => lines.push(line));
    await mailer.send({
      to: "ada@example.com",
      subject: "Confirm your Persona Reply application",
      text: "the whole text",
      consoleLine:
        "APPLICATION CONFIRMATION LINK for ada@example.com: http://127.0.0.1:8787/apply/confirm?token=abc",
    });
    expect(lines).toEqual([
      "APPLICATION CONFIRMATION LINK for ada@example.com: http://127.0.0.1:8787/apply/confirm?token=abc (no SMTP server configured, so it is printed here)",
    ]);
  });

  it("prints nothing when the service's log is silent", () => {
    expect(operatorConsoleFor(createLogger("silent"))).not.toBe(printForOperator);
    expect(operatorConsoleFor(createLogger("info"))).toBe(printForOperator);
  });
});
