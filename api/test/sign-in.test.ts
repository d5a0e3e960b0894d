import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type MailCatcher,
  signInLinkIn,
  startMailCatcher,
} from "../../test-support/mail-catcher.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import { hiddenField, PageClient } from "./support/page-client.js";
import { followLink, requestLink } from "./support/sign-in-flow.js";

// The e-mail sign-in of the playground against the real service process and
// a real SMTP server (smtp-server) on loopback ports.

let mail: MailCatcher;
let api: ApiFixture;
const allowed = "ada@example.com";

beforeAll(async () => {
  mail = await startMailCatcher();
  api = await startApi({
    PERSONA_SMTP_URL: mail.url,
    PERSONA_MAIL_FROM: "Persona Reply <noreply@persona.test>",
  });
  api.admin("email", "allow", "Ada@Example.com", "--account", api.accountId);
});
afterAll(async () => {
  await api?.stop();
  await mail?.close();
});

describe("e-mail sign-in (real SMTP)", () => {
  it("mails a one-time link to an allowed address; following it signs in", async () => {
    const client = new PageClient(api.baseUrl);
    const answer = await requestLink(client, "  ADA@example.com ");
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain("a sign-in link is on its way");

    const caught = await mail.nextMailTo(allowed);
    expect(caught.from).toBe("noreply@persona.test");
    expect(caught.raw).toMatch(/^Subject: Your Persona Reply sign-in link/mu);
    expect(caught.text).toContain("expires in 15 minutes");

    const signedIn = await followLink(client, caught);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe("/account");
    const cookie = signedIn.headers
      .getSetCookie()
      .find((line) => line.startsWith("persona_session="));
    expect(cookie).toMatch(/HttpOnly/u);
    expect(cookie).toMatch(/SameSite=Lax/u);
    expect(cookie).not.toMatch(/Secure/u);

    const keys = await client.page("/keys");
    expect(keys.status).toBe(200);
    expect(keys.html).toContain(allowed);

    // The link works once.
    const again = await client.page(
      new URL(signInLinkIn(caught)).pathname + new URL(signInLinkIn(caught)).search,
    );
    expect(again.status).toBe(400);
    // The token never reaches the request log.
    const token = new URL(signInLinkIn(caught)).searchParams.get("token") ?? "";
    // The request log line is written after the answer; wait for it, then look.
    await expect.poll(() => api.output()).toContain("/sign-in/verify?token=[redacted]");
    expect(api.output()).not.toContain(token);
  });

  it("answers an address that is not allowed exactly the same, and mails nothing", async () => {
    const client = new PageClient(api.baseUrl);
    const known = await (await requestLink(client, allowed)).text();
    const unknown = await (await requestLink(client, "mallory@example.com")).text();
    const strip = (html: string) =>
      html.replace(/[\w.+-]+@example\.com/gu, "ADDRESS").replace(/value="[^"]*"/gu, "");
    expect(strip(unknown)).toBe(strip(known));
    await mail.nextMailTo(allowed);
    await expect(mail.nextMailTo("mallory@example.com", 1_000)).rejects.toThrow(/no mail/u);
  });

  it("brings the person back to the page that asked for sign-in", async () => {
    const client = new PageClient(api.baseUrl);
    const redirect = await client.request("/keys");
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get("location")).toBe("/sign-in?return_to=%2Fkeys");
    await requestLink(client, allowed, "/keys");
    const signedIn = await followLink(client, await mail.nextMailTo(allowed));
    expect(signedIn.headers.get("location")).toBe("/keys");
  });

  it("signs out, and the session no longer works", async () => {
    const client = new PageClient(api.baseUrl);
    await requestLink(client, allowed);
    await followLink(client, await mail.nextMailTo(allowed));
    const sessionCookie = client.cookies.get("persona_session") ?? "";
    const page = await client.page("/sessions");
    expect(page.html).toContain("this browser");
    const out = await client.postForm("/sign-out", { _csrf: page.csrf });
    expect(out.status).toBe(303);
    expect(client.cookies.has("persona_session")).toBe(false);
    const stale = new PageClient(api.baseUrl);
    stale.cookies.set("persona_session", sessionCookie);
    expect((await stale.request("/keys")).status).toBe(303);
  });

  it("limits sign-in requests per address (the same for unknown addresses)", async () => {
    for (const address of ["grace@example.com", "nobody@example.com"]) {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 6; attempt++) {
        statuses.push((await requestLink(new PageClient(api.baseUrl), address)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    }
  });

  it("refuses a mistyped or made-up link", async () => {
    const client = new PageClient(api.baseUrl);
    expect((await client.page("/sign-in/verify?token=made-up")).status).toBe(400);
    const form = await client.page("/sign-in");
    const post = await client.postForm("/sign-in/verify", { _csrf: form.csrf, token: "made-up" });
    expect(post.status).toBe(400);
    expect(client.cookies.has("persona_session")).toBe(false);
  });
});

describe("e-mail sign-in without SMTP (a local service)", () => {
  let local: ApiFixture;
  beforeAll(async () => {
    local = await startApi();
  });
  afterAll(() => local?.stop());

  const demoEmail = "you@persona.localhost";
  /** The link of the console line `persona-reply: SIGN-IN LINK for <address> (…): <link>`. */
  const printedLink = (address: string) =>
    new RegExp(
      `^persona-reply: SIGN-IN LINK for ${address.replaceAll(".", "\\.")} .*: (\\S+)$`,
      "mu",
    ).exec(local.output())?.[1];

  it("allows the demo address out of the box and says so on the console", () => {
    expect(local.output()).toContain(
      `persona-reply: playground sign-in for the demo account: ${demoEmail} at ${local.baseUrl}/sign-in; no SMTP server is configured, so the sign-in link is printed on this console`,
    );
    const allowed = JSON.parse(local.admin("email", "list")) as Array<{
      email: string;
      accountId: string;
    }>;
    expect(allowed).toEqual([
      expect.objectContaining({ email: demoEmail, accountId: local.accountId }),
    ]);
  });

  it("prints the link as one plain console line (not in the JSON log), and it signs in", async () => {
    const client = new PageClient(local.baseUrl);
    const form = await client.page("/sign-in");
    const asked = await client.postForm("/sign-in", { _csrf: form.csrf, email: demoEmail });
    expect(await asked.text()).toContain("printed on the console of the service");
    await expect.poll(() => printedLink(demoEmail)).toBeDefined();
    const url = new URL(printedLink(demoEmail) ?? "");
    expect(url.origin).toBe(local.baseUrl);
    const token = url.searchParams.get("token") ?? "";
    // The JSON log says a link was printed, without it.
    const jsonLines = () =>
      local
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"));
    await expect
      .poll(() => jsonLines().some((line) => line.includes("the sign-in link was printed")))
      .toBe(true);
    expect(jsonLines().some((line) => line.includes(token))).toBe(false);

    const confirm = await client.page(url.pathname + url.search);
    const signedIn = await client.postForm("/sign-in/verify", {
      _csrf: confirm.csrf,
      token: hiddenField(confirm.html, "token") ?? "",
    });
    expect(signedIn.status).toBe(303);
    const keys = await client.page("/keys");
    expect(keys.html).toContain("demo key");
  });

  it("tells the operator (not the browser) when an address that is not allowed asks", async () => {
    const strip = (html: string) =>
      html.replace(/[\w.+-]+@[\w.]+/gu, "ADDRESS").replace(/value="[^"]*"/gu, "");
    const answers: string[] = [];
    for (const email of [demoEmail, "mallory@example.com"]) {
      const client = new PageClient(local.baseUrl);
      const form = await client.page("/sign-in");
      answers.push(await (await client.postForm("/sign-in", { _csrf: form.csrf, email })).text());
    }
    expect(strip(answers[1] ?? "")).toBe(strip(answers[0] ?? ""));
    await expect
      .poll(() => local.output())
      .toContain(
        "persona-reply: sign-in asked for mallory@example.com, which is not allowed to sign in, so no link was made. To allow it: npm run admin -- email allow mallory@example.com --account <account ID>",
      );
    await expect
      .poll(() => local.output())
      .toMatch(/"email":"mallory@example\.com"[^\n]*not allowed/u);
    expect(printedLink("mallory@example.com")).toBeUndefined();
  });
});

describe("the demo address (PERSONA_DEMO_EMAIL)", () => {
  it("is configurable, and empty allows none", async () => {
    const chosen = await startApi({ PERSONA_DEMO_EMAIL: "Ops@Example.test" });
    try {
      expect(chosen.output()).toContain(
        "playground sign-in for the demo account: ops@example.test",
      );
      expect(JSON.parse(chosen.admin("email", "list"))).toEqual([
        expect.objectContaining({ email: "ops@example.test" }),
      ]);
    } finally {
      await chosen.stop();
    }
    const none = await startApi({ PERSONA_DEMO_EMAIL: "" });
    try {
      expect(none.output()).not.toContain("playground sign-in");
      expect(JSON.parse(none.admin("email", "list"))).toEqual([]);
    } finally {
      await none.stop();
    }
  });
});
