import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithBrowser, launchChromium, saveScreenshot } from "../../test-support/browser.js";
import { type LoginProcess, spawnLoginProcess } from "../../test-support/login-process.js";
import {
  type MailCatcher,
  signInLinkIn,
  startMailCatcher,
} from "../../test-support/mail-catcher.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import { PERSONA_BIN, runPersona } from "./support/run-persona.js";

// `persona login` end to end, as a new user would: the built tool as its own
// process, the real service (mail through a real SMTP server), and Debian's
// chromium signing in by the mailed link and approving. Then `persona
// generate` works with the stored key. No output, log or capture holds the key.

const email = "kai@example.com";

/** Starts the built `persona login --no-browser` as its own process. */
function startLogin(args: string[], env: Record<string, string>): LoginProcess {
  return spawnLoginProcess([PERSONA_BIN, "login", "--no-browser", ...args], env);
}

describeWithBrowser("persona login in a real browser", () => {
  let mail: MailCatcher;
  let api: ApiFixture;
  let browser: Browser;
  let home: string;
  let env: Record<string, string>;
  let profilesFile: string;
  const printed: string[] = [];

  beforeAll(async () => {
    mail = await startMailCatcher();
    api = await startApi({ PERSONA_SMTP_URL: mail.url });
    api.admin("email", "allow", email, "--account", api.accountId);
    browser = await launchChromium();
    home = fs.mkdtempSync(path.join(os.tmpdir(), "persona-login-"));
    env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
    profilesFile = path.join(home, "config", "persona-reply", "profiles.json");
  });

  afterAll(async () => {
    await browser?.close();
    const key = fs.existsSync(profilesFile)
      ? (JSON.parse(fs.readFileSync(profilesFile, "utf8")).profiles.laptop?.apiKey as
          | string
          | undefined)
      : undefined;
    const serviceLog = api?.output() ?? "";
    await api?.stop();
    await mail?.close();
    fs.rmSync(home, { recursive: true, force: true });
    if (key !== undefined) {
      expect(serviceLog.includes(key)).toBe(false);
      for (const text of printed) expect(text.includes(key)).toBe(false);
    }
  });

  it("signs in by mail, approves, and stores the key in the profile unseen", {
    timeout: 120_000,
  }, async () => {
    const login = startLogin(
      [
        "--base-url",
        api.baseUrl,
        "--persona-id",
        api.personaId,
        "--name",
        "kai's laptop",
        "--profile",
        "laptop",
      ],
      env,
    );
    const url = await login.url;
    await expect.poll(() => login.stderr()).toContain("Waiting for approval in the browser");

    const page = await browser.newPage();
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    expect(await page.locator("#waiting-tool").textContent()).toContain(
      "Sign in to approve the key for the persona command-line tool.",
    );
    await page.getByLabel("E-mail address").fill(email);
    await page.getByRole("button", { name: "Send me a sign-in link" }).click();
    await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
    await page.goto(signInLinkIn(await mail.nextMailTo(email)));
    await page.getByRole("button", { name: "Continue" }).click();

    await page.getByRole("heading", { name: "Create a key for your tool?" }).waitFor();
    expect(await page.locator("#key-name").textContent()).toBe("kai's laptop");
    expect(await page.locator("#source").textContent()).toBe("the persona command-line tool");
    expect(await page.locator("#callback").textContent()).toMatch(
      /^127\.0\.0\.1:\d+ on this computer$/u,
    );
    await saveScreenshot(page, "persona-login/01-consent");

    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Login complete" }).waitFor();
    await saveScreenshot(page, "persona-login/02-callback");
    expect(await page.locator("p").first().textContent()).toMatch(
      /^The persona command-line tool received your new key \(prk_…\w{4}\)\.$/u,
    );
    expect(await page.content()).toContain("You can close this tab and go back to your terminal.");

    expect(await login.exit).toBe(0);
    printed.push(login.stdout(), login.stderr(), await page.content());
    const stored = JSON.parse(fs.readFileSync(profilesFile, "utf8"));
    expect(fs.statSync(profilesFile).mode & 0o777).toBe(0o600);
    expect(stored.activeProfile).toBe("laptop");
    const key = stored.profiles.laptop.apiKey as string;
    expect(/^prk_[0-9A-Za-z]{38}$/u.test(key)).toBe(true);
    expect(stored.profiles.laptop).toMatchObject({
      personaId: api.personaId,
      baseUrl: api.baseUrl,
    });
    expect(login.stdout()).toContain(
      `Logged in: key prk_…${key.slice(-4)} saved to profile "laptop" (active)`,
    );

    const keys = JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
      name: string;
    }>;
    expect(keys.map((entry) => entry.name)).toContain("kai's laptop");

    const generated = await runPersona(["generate", "Hello from the terminal!"], env);
    printed.push(generated.stdout, generated.stderr);
    expect(generated.code).toBe(0);
    expect(generated.stdout.trim().length).toBeGreaterThan(0);
    await page.close();
  });

  it("refuses an answer with a tampered state and saves nothing", { timeout: 60_000 }, async () => {
    const before = fs.readFileSync(profilesFile, "utf8");
    const login = startLogin(["--base-url", api.baseUrl, "--profile", "other"], env);
    const url = new URL(await login.url);
    const callback = new URL(url.searchParams.get("redirect_uri") ?? "");
    callback.searchParams.set("state", `${url.searchParams.get("state")?.slice(0, -2)}xy`);
    callback.searchParams.set("encrypted_api_key", "e30.e30.e30.e30.e30");
    const answer = await fetch(callback);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("state mismatch");
    expect(await login.exit).toBe(1);
    expect(login.stderr()).toMatch(/state mismatch.*nothing was saved/u);
    expect(fs.readFileSync(profilesFile, "utf8")).toBe(before);
  });

  it("reports a denial from the browser", { timeout: 60_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const login = startLogin(["--base-url", api.baseUrl, "--profile", "denied"], env);
    await page.goto(await login.url);
    await page.getByLabel("E-mail address").fill(email);
    await page.getByRole("button", { name: "Send me a sign-in link" }).click();
    await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
    await page.goto(signInLinkIn(await mail.nextMailTo(email)));
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByRole("heading", { name: "Login not completed" }).waitFor();
    await saveScreenshot(page, "persona-login/03-denied");
    expect(await login.exit).toBe(1);
    expect(login.stderr()).toMatch(/denied in the browser/u);
    expect(JSON.parse(fs.readFileSync(profilesFile, "utf8")).profiles.denied).toBeUndefined();
    await context.close();
  });
});
