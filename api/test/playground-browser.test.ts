import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithBrowser, launchChromium, saveScreenshot } from "../../test-support/browser.js";
import {
  type MailCatcher,
  signInLinkIn,
  startMailCatcher,
} from "../../test-support/mail-catcher.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";

// The playground as a person uses it, in Debian's chromium: sign in by the
// mailed link, create a key (shown once), use it, revoke it, chat. Screenshots
// go to test-artifacts/; the key shown once is masked in them.

const email = "lin@example.com";

describeWithBrowser("playground in a real browser", () => {
  let mail: MailCatcher;
  let api: ApiFixture;
  let browser: Browser;
  let page: Page;
  const keysSeen: string[] = [];

  beforeAll(async () => {
    mail = await startMailCatcher();
    api = await startApi({ PERSONA_SMTP_URL: mail.url });
    api.admin("email", "allow", email, "--account", api.accountId);
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: api.baseUrl });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: api.baseUrl });
    page = await context.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    const output = api?.output() ?? "";
    await api?.stop();
    await mail?.close();
    // No log line of the service ever held a key made in these tests.
    for (const key of keysSeen) expect(output.includes(key)).toBe(false);
  });

  function generate(key: string) {
    return fetch(`${api.baseUrl}/api/v1/generate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({
        personaId: api.personaId,
        messages: [{ role: "user", content: "Hi" }],
      }),
    });
  }

  it("signs in by the mailed link and comes back to /keys", { timeout: 120_000 }, async () => {
    await page.goto("/keys");
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await saveScreenshot(page, "playground/01-sign-in");
    await page.getByLabel("E-mail address").fill(email);
    await page.getByRole("button", { name: "Send me a sign-in link" }).click();
    await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
    await saveScreenshot(page, "playground/02-check-mail");

    const link = signInLinkIn(await mail.nextMailTo(email));
    await page.goto(link);
    await saveScreenshot(page, "playground/03-confirm-sign-in");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL("**/keys");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
  });

  it("creates a key, shows it once, and it works", { timeout: 120_000 }, async () => {
    await page.getByLabel("Name").fill("laptop");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.locator("#new-key");
    await shown.waitFor();
    const key = (await shown.textContent())?.trim() ?? "";
    keysSeen.push(key);
    expect(/^prk_[0-9A-Za-z]{38}$/u.test(key)).toBe(true);
    await page.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => page.locator("#copy-status").textContent()).toMatch(/Copied|Selected/u);
    await saveScreenshot(page, "playground/04-key-shown-once", [shown]);

    expect((await generate(key)).status).toBe(200);
    // Post, redirect, get: the page showing the key is GET /keys, with no key in its URL.
    expect(new URL(page.url()).pathname).toBe("/keys");
    expect(page.url().includes(key)).toBe(false);

    // A reload shows the list: the key is not shown again and no second key is made.
    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe("GET");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    const html = await page.content();
    expect(html.includes(key)).toBe(false);
    expect(await page.locator("#new-key").count()).toBe(0);
    const row = page.locator("tr", { hasText: "laptop" });
    await expect.poll(() => row.textContent()).toContain(`prk_…${key.slice(-4)}`);
    expect(await row.count()).toBe(1);
    const keys = JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
      name: string;
    }>;
    expect(keys.filter((entry) => entry.name === "laptop")).toHaveLength(1);
    await saveScreenshot(page, "playground/05-keys-list");
  });

  it("revokes the key, which then answers 401", { timeout: 120_000 }, async () => {
    const key = keysSeen[0] ?? "";
    await page.getByRole("button", { name: "Revoke laptop" }).click();
    await page.waitForURL("**/keys");
    await expect
      .poll(() => page.locator("tr", { hasText: "laptop" }).textContent())
      .toContain("revoked");
    await saveScreenshot(page, "playground/06-key-revoked");
    expect((await generate(key)).status).toBe(401);
  });

  it("chats with the persona, history kept in the page, and personifies", {
    timeout: 120_000,
  }, async () => {
    await page.getByRole("link", { name: "Playground" }).click();
    await page.getByRole("heading", { name: "Playground" }).waitFor();
    const message = page.getByLabel("Message");
    await message.fill("Hi! Which herbs grow well on a balcony?");
    await page.getByRole("button", { name: "Send" }).click();
    const replies = page.locator(".turn.assistant .text");
    await replies.first().waitFor();
    expect(((await replies.first().textContent()) ?? "").length).toBeGreaterThan(0);

    await page.getByLabel("Include variations").check();
    await message.fill("Thanks! And which need the most sun?");
    await page.getByRole("button", { name: "Send" }).click();
    await expect.poll(() => replies.count()).toBe(2);
    expect(await page.locator(".turn.user").count()).toBe(2);
    await saveScreenshot(page, "playground/07-chat");

    await page
      .getByLabel("Text to rewrite")
      .fill("The meeting moves to Thursday. Bring the seed catalogue.");
    await page.getByRole("button", { name: "Personify" }).click();
    await expect.poll(() => page.locator("#personify-result").textContent()).toMatch(/Thursday/u);
    await saveScreenshot(page, "playground/08-personify");

    await page.getByRole("button", { name: "New conversation" }).click();
    expect(await page.locator("#chat-log .turn").count()).toBe(0);
  });

  it("lists the session and signs out", { timeout: 120_000 }, async () => {
    await page.getByRole("link", { name: "Sessions" }).click();
    await page.getByText("this browser").waitFor();
    await saveScreenshot(page, "playground/09-sessions");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/sign-in");
    await page.goto("/playground");
    expect(new URL(page.url()).pathname).toBe("/sign-in");
  });
});
