import { spawn } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../../test-support/free-port.js";
import { isolatedEnvironment } from "../../test-support/isolated-process.js";
import { type MailCatcher, startMailCatcher } from "../../test-support/mail-catcher.js";
import {
  ADMIN_SCRIPT,
  type ApiFixture,
  EXAMPLE_PERSONA_FILE,
  startApi,
} from "../../test-support/spawn-service.js";
import { hiddenField, PageClient } from "./support/page-client.js";
import { followLink, requestLink } from "./support/sign-in-flow.js";
import { describeEachDialect } from "./support/test-databases.js";

// The journey of a new customer (docs/API.md §1.6) against the real service
// process, the real persona-admin and a real SMTP server, once on SQLite and
// once on PostgreSQL: apply, confirm the address, review, approve or reject,
// sign in, the persona's ID, a key, an answer from /api/v1/generate.

const BOOKING_URL = "https://book.example.com/persona-onboarding";

interface Form {
  email: string;
  name?: string;
  company?: string;
  purpose?: string;
  expected_volume?: string;
  contact_consent?: string;
}

/** Every test is its own client (peer address), so the per-client limit stays its own. */
let nextClient = 10;
const newClient = (baseUrl: string) =>
  new PageClient(baseUrl, { localAddress: `127.0.0.${nextClient++}` });

async function apply(client: PageClient, form: Form): Promise<Response> {
  const page = await client.page("/apply");
  expect(page.status).toBe(200);
  return client.postForm("/apply", {
    _csrf: page.csrf,
    name: "Ada Lovelace",
    company: "Analytical Engines Ltd",
    purpose: "Support replies for our help desk.\nFriendly, short.",
    expected_volume: "1k-10k",
    contact_consent: "yes",
    ...form,
  });
}

function confirmLinkIn(text: string): URL {
  const match = /https?:\/\/\S+\/apply\/confirm\?token=[\w-]+/u.exec(text);
  if (match === null) throw new Error(`no confirmation link in:\n${text}`);
  return new URL(match[0]);
}

async function confirm(client: PageClient, link: URL): Promise<Response> {
  const page = await client.page(link.pathname + link.search);
  expect(page.status).toBe(200);
  return client.postForm("/apply/confirm", {
    _csrf: page.csrf,
    token: hiddenField(page.html, "token") ?? "",
  });
}

/** A persona-admin run that does not block the event loop (for running two at once). */
function adminAsync(
  api: ApiFixture,
  environment: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ADMIN_SCRIPT, ...args], {
      cwd: api.directory,
      env: isolatedEnvironment(environment),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Listed {
  id: string;
  email: string;
  status: string;
  accountId: string | null;
}

await describeEachDialect("access applications", (database) => {
  let mail: MailCatcher;
  let api: ApiFixture;
  let environment: Record<string, string>;

  /**
   * Runs a persona-admin command that sends mail: without blocking this
   * process, whose mail catcher must answer meanwhile (`api.admin` blocks).
   *
   * @returns stdout trimmed; throws with stderr on a non-zero exit
   */
  async function mailingAdmin(...args: string[]): Promise<string> {
    const run = await adminAsync(api, environment, ...args);
    if (run.code !== 0) throw new Error(`persona-admin ${args.join(" ")} failed: ${run.stderr}`);
    return run.stdout.trim();
  }

  /** Applies and confirms; returns the application's ID. */
  async function applyAndConfirm(email: string, form: Partial<Form> = {}): Promise<string> {
    const client = newClient(api.baseUrl);
    expect((await apply(client, { email, ...form })).status).toBe(200);
    const confirmed = await confirm(client, confirmLinkIn((await mail.nextMailTo(email)).text));
    expect(confirmed.status).toBe(200);
    const listed = JSON.parse(api.admin("application", "list", "--json")) as Listed[];
    const found = listed.find((item) => item.email === email);
    expect(found?.status).toBe("in_review");
    return found?.id ?? "";
  }

  beforeAll(async () => {
    mail = await startMailCatcher();
    const port = await freePort();
    environment = {
      PERSONA_DATABASE_URL: database.url,
      PERSONA_PORT: String(port),
      PERSONA_PUBLIC_URL: `http://127.0.0.1:${port}`,
      PERSONA_SMTP_URL: mail.url,
      PERSONA_MAIL_FROM: "Persona Reply <noreply@persona.test>",
      PERSONA_ONBOARDING_BOOKING_URL: BOOKING_URL,
    };
    api = await startApi(environment);
  });
  afterAll(async () => {
    await api?.stop();
    await mail?.close();
  });

  it("takes a new customer from /apply to a 200 from /api/v1/generate", async () => {
    const landing = await new PageClient(api.baseUrl).page("/");
    expect(landing.html).toContain('href="/apply"');

    const client = newClient(api.baseUrl);
    const form = await client.page("/apply");
    expect(form.html).not.toContain("<script");
    const applied = await apply(client, { email: "Ada@Example.com" });
    expect(applied.status).toBe(200);
    const answer = await applied.text();
    expect(answer).toContain("ada@example.com");
    expect(answer).toContain("2–5 days");

    // Not in review before the address is confirmed.
    const before = JSON.parse(api.admin("application", "list", "--json")) as Listed[];
    expect(before.find((item) => item.email === "ada@example.com")?.status).toBe("unconfirmed");
    expect(api.admin("application", "list", "--status", "in_review")).not.toContain(
      "ada@example.com",
    );

    const confirmation = await mail.nextMailTo("ada@example.com");
    expect(confirmation.raw).toMatch(/^Subject: Confirm your Persona Reply application/mu);
    const link = confirmLinkIn(confirmation.text);
    expect(link.origin).toBe(api.baseUrl);
    const page = await client.page(link.pathname + link.search);
    expect(page.html).toContain("Analytical Engines Ltd");
    const confirmed = await confirm(client, link);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain("in review");
    // The link works once.
    expect((await client.page(link.pathname + link.search)).status).toBe(400);

    const listed = JSON.parse(
      api.admin("application", "list", "--status", "in_review", "--json"),
    ) as Listed[];
    const id = listed.find((item) => item.email === "ada@example.com")?.id ?? "";
    expect(id).not.toBe("");

    const approved = await mailingAdmin("application", "approve", id, "--note", "good fit");
    expect(approved).toMatch(/approved: account [0-9a-f-]{36}/u);
    const accountId = /account ([0-9a-f-]{36})/u.exec(approved)?.[1] ?? "";
    const approval = await mail.nextMailTo("ada@example.com");
    expect(approval.raw).toMatch(/^Subject: Your Persona Reply application is approved/mu);
    expect(approval.text).toContain(BOOKING_URL);
    expect(approval.text).toContain(`${api.baseUrl}/sign-in`);

    const shown = api.admin("application", "show", id);
    expect(shown).toMatch(/unconfirmed → in_review {2}by applicant/u);
    expect(shown).toMatch(/in_review → approved {2}by \S+: good fit/u);

    // Sign in: the address was allowed at approval; sign-in lands on the account page.
    const browser = newClient(api.baseUrl);
    await requestLink(browser, "ada@example.com");
    const signedIn = await followLink(browser, await mail.nextMailTo("ada@example.com"));
    expect(signedIn.headers.get("location")).toBe("/account");
    const waiting = await browser.page("/account");
    expect(waiting.status).toBe(200);
    expect(waiting.html).toContain("No persona yet");
    expect(waiting.html).toContain(BOOKING_URL);
    expect(waiting.html).toContain("approved");

    // After the onboarding call: the persona, mailed and shown with its ID.
    const personaId = await mailingAdmin(
      "persona",
      "create",
      "--account",
      accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    );
    expect(personaId).toMatch(/^[0-9a-f-]{36}$/u);
    const ready = await mail.nextMailTo("ada@example.com");
    expect(ready.raw).toMatch(/^Subject: Your Persona Reply persona is ready/mu);
    expect(ready.text).toContain(personaId);
    expect(ready.text).toContain(`${api.baseUrl}/keys`);
    const account = await browser.page("/account");
    expect(account.html).toContain(`<code class="persona-id">${personaId}</code>`);
    expect(account.html).toContain('href="/keys"');
    expect(account.html).toContain('href="/playground"');
    expect(account.html).toContain("example app");
    // No operator internals: the persona's route stays the operator's.
    expect(account.html).not.toMatch(/offline[-:]|upstream|model route/iu);

    // A key from the keys page, funds from the operator, an answer.
    const keys = await browser.page("/keys");
    expect((await browser.postForm("/keys", { _csrf: keys.csrf, name: "server" })).status).toBe(
      303,
    );
    const key = /id="new-key">(prk_[0-9A-Za-z]{38})</u.exec(
      (await browser.page("/keys")).html,
    )?.[1];
    expect(key).toBeDefined();
    api.admin("account", "topup", accountId, "5");
    const generated = await fetch(`${api.baseUrl}/api/v1/generate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key ?? "" },
      body: JSON.stringify({ personaId, messages: [{ role: "user", content: "Hello!" }] }),
    });
    expect(generated.status).toBe(200);
    expect(((await generated.json()) as { finalReply: string }).finalReply).not.toBe("");
    expect(mail.messages.filter((caught) => caught.to.includes("ada@example.com"))).toHaveLength(4);
  });

  it("rejects with a reason, mailed; an application is answered once", async () => {
    const id = await applyAndConfirm("bob@example.com");
    await expect(mailingAdmin("application", "reject", id)).rejects.toThrow(/--reason/u);
    expect(
      await mailingAdmin("application", "reject", id, "--reason", "Not a fit for the beta yet."),
    ).toBe(`application ${id} rejected`);
    const rejection = await mail.nextMailTo("bob@example.com");
    expect(rejection.text).toContain("Not a fit for the beta yet.");
    expect(() => api.admin("application", "approve", id)).toThrow(
      /is rejected \(by \S+ at .*\); nothing changed/u,
    );
    expect(() => api.admin("application", "reject", id, "--reason", "again")).toThrow(
      /nothing changed/u,
    );
    const allowed = JSON.parse(api.admin("email", "list")) as Array<{ email: string }>;
    expect(allowed.map((entry) => entry.email)).not.toContain("bob@example.com");
    expect(() => api.admin("application", "approve", "no-such-id")).toThrow(/no application/u);
  });

  it("gives an address that applied its status, never a second application", async () => {
    // Before confirmation: a second application replaces the first and its link.
    const client = newClient(api.baseUrl);
    await apply(client, { email: "cy@example.com", company: "First Co" });
    const first = confirmLinkIn((await mail.nextMailTo("cy@example.com")).text);
    await apply(newClient(api.baseUrl), { email: "cy@example.com", company: "Second Co" });
    const second = confirmLinkIn((await mail.nextMailTo("cy@example.com")).text);
    expect((await client.page(first.pathname + first.search)).status).toBe(400);
    const page = await client.page(second.pathname + second.search);
    expect(page.html).toContain("Second Co");
    expect((await confirm(client, second)).status).toBe(200);

    // After confirmation: the same answer on the page, the status by mail, one row.
    const again = await apply(newClient(api.baseUrl), { email: "CY@example.com" });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("one application per address");
    const status = await mail.nextMailTo("cy@example.com");
    expect(status.text).toContain("Your application is in review since");
    const listed = JSON.parse(api.admin("application", "list", "--json")) as Listed[];
    expect(listed.filter((item) => item.email === "cy@example.com")).toHaveLength(1);
  });

  it("makes one account when two operators approve at once", async () => {
    const id = await applyAndConfirm("dee@example.com", { company: "Race Conditions GmbH" });
    const runs = await Promise.all([
      adminAsync(api, environment, "application", "approve", id),
      adminAsync(api, environment, "application", "approve", id),
    ]);
    expect(runs.map((run) => run.code).sort()).toEqual([0, 1]);
    expect(runs.find((run) => run.code === 1)?.stderr).toMatch(/is approved .*nothing changed/u);
    const accounts = JSON.parse(api.admin("account", "list")) as Array<{ name: string }>;
    expect(accounts.filter((item) => item.name === "Race Conditions GmbH")).toHaveLength(1);
    const shown = JSON.parse(api.admin("application", "show", id, "--json")) as {
      events: Array<{ toStatus: string }>;
    };
    expect(shown.events.filter((event) => event.toStatus === "approved")).toHaveLength(1);
    await mail.nextMailTo("dee@example.com"); // the approval, once
    await expect(mail.nextMailTo("dee@example.com", 500)).rejects.toThrow(/no mail/u);
  });

  it("limits applications per client and per address before storing them", async () => {
    const client = newClient(api.baseUrl);
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let index = 0; index < 7; index++) {
      const answer = await apply(client, { email: `burst${index}@example.com` });
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    const listed = JSON.parse(api.admin("application", "list", "--json")) as Listed[];
    expect(listed.filter((item) => item.email.startsWith("burst"))).toHaveLength(5);

    // One address, from four clients: the address's own limit.
    const perAddress: number[] = [];
    for (let index = 0; index < 4; index++) {
      perAddress.push((await apply(newClient(api.baseUrl), { email: "eve@example.com" })).status);
    }
    expect(perAddress).toEqual([200, 200, 200, 429]);
  });

  it("refuses oversized, missing and forged fields, and a form without its CSRF token", async () => {
    const cases: Array<[Partial<Form>, RegExp]> = [
      [{ name: "n".repeat(121) }, /at most 120 characters/u],
      [{ company: "c".repeat(161) }, /at most 160 characters/u],
      [{ purpose: "p".repeat(2001) }, /at most 2000 characters/u],
      [{ name: "   " }, /required/u],
      [{ expected_volume: "a billion" }, /pick one of the choices/u],
      [{ contact_consent: "" }, /needed/u],
    ];
    for (const [fields, problem] of cases) {
      const answer = await apply(newClient(api.baseUrl), { email: "size@example.com", ...fields });
      expect(answer.status, JSON.stringify(fields).slice(0, 60)).toBe(400);
      expect(await answer.text()).toMatch(problem);
    }
    const badEmail = await apply(newClient(api.baseUrl), {
      email: `${"a".repeat(250)}@example.com`,
    });
    expect(badEmail.status).toBe(400);
    const forged = await newClient(api.baseUrl).postForm("/apply", { email: "csrf@example.com" });
    expect(forged.status).toBe(403);
    const listed = JSON.parse(api.admin("application", "list", "--json")) as Listed[];
    expect(listed.some((item) => /size@|csrf@/u.test(item.email))).toBe(false);
  });

  it("escapes hostile input on the pages and in persona-admin's output", async () => {
    const hostile = {
      name: "<script>alert(1)</script>\u001b[31mRED\u001b[0m",
      company: '"><img src=x onerror=alert(1)>\u202eevil',
      purpose: "line one\r\n\u001b]0;pwned\u0007\u009b2J</textarea><b>bold</b>",
    };
    const id = await applyAndConfirm("mallory+tag@example.com", hostile);
    const client = newClient(api.baseUrl);
    const forms = [await apply(client, { email: "not-an-address", ...hostile })];
    const again = await forms[0]?.text();
    expect(again).not.toContain("<script>alert");
    expect(again).not.toContain("<img src=x");
    expect(again).not.toContain("</textarea><b>");
    expect(again).toContain("&lt;script&gt;");
    // The address and the choices too: echoed escaped, or not at all.
    const hostileChoices = await apply(newClient(api.baseUrl), {
      email: '"><script>alert(2)</script>@example.com',
      expected_volume: '"><script>alert(3)</script>',
      contact_consent: '"><script>alert(4)</script>',
    });
    expect(hostileChoices.status).toBe(400);
    expect(await hostileChoices.text()).not.toMatch(/<script>alert\([234]\)/u);
    const forgedToken = await client.page(
      `/apply/confirm?token=${encodeURIComponent('"><script>alert(5)</script>')}`,
    );
    expect(forgedToken.status).toBe(400);
    expect(forgedToken.html).not.toContain("<script>alert(5)");

    for (const output of [
      api.admin("application", "list"),
      api.admin("application", "list", "--json"),
      api.admin("application", "show", id),
      api.admin("application", "show", id, "--json"),
    ]) {
      // No control character but the newline (C0, DEL, C1), no format character (U+202E).
      expect(output).not.toMatch(/(?!\n)[\p{Cc}\p{Cf}]/u);
      expect(output).toContain("mallory+tag@example.com");
    }
    const shown = JSON.parse(api.admin("application", "show", id, "--json")) as {
      name: string;
      purpose: string;
    };
    // Stored cleaned: the markup kept as text, the control characters gone.
    expect(shown.name).toBe("<script>alert(1)</script>[31mRED[0m");
    expect(shown.purpose).toBe("line one\n]0;pwned2J</textarea><b>bold</b>");

    // The approval sends the account page no markup either.
    await mailingAdmin("application", "approve", id);
    await mail.nextMailTo("mallory+tag@example.com");
    const browser = newClient(api.baseUrl);
    await requestLink(browser, "mallory+tag@example.com");
    await followLink(browser, await mail.nextMailTo("mallory+tag@example.com"));
    const account = await browser.page("/account");
    expect(account.status).toBe(200);
    expect(account.html).not.toContain("<script>alert");
  });
});
