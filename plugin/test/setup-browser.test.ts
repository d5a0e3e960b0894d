import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithBrowser, launchChromium, saveScreenshot } from "../../test-support/browser.js";
import { freePort } from "../../test-support/free-port.js";
import {
  type MailCatcher,
  signInLinkIn,
  startMailCatcher,
} from "../../test-support/mail-catcher.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import { readEnvValues } from "../src/env-file/env-file-content.js";
import { GITIGNORE_COMMENT } from "../src/gitignore/ensure-git-ignored.js";
import { connectAsMcpJsonSays } from "./support/mcp-json.js";
import { copyCommittedPlugin, type PluginCopy, SETUP_PROGRAM } from "./support/plugin-files.js";
import { snapshot, startSetup } from "./support/setup-process.js";

// The plugin's key setup end to end, as a new user goes through it, from
// the plugin as a marketplace install leaves it (its committed files alone,
// copied outside the repository): the bundled setup program as its own
// process against the real service (mail through a real SMTP server),
// Debian's chromium signing in by the mailed link and approving on the
// consent page; then the bundled persona-mcp, started as the copy's
// .mcp.json says in the project folder, answers a tool call with the key
// from .env. No output, log or page of the whole run may hold the key.

const email = "ada@example.com";

describeWithBrowser("the plugin's key setup in a real browser", () => {
  let mail: MailCatcher;
  let api: ApiFixture;
  let browser: Browser;
  let context: BrowserContext;
  let home: string;
  let project: string;
  let env: Record<string, string>;
  let plugin: PluginCopy;
  let setupProgram: string;
  const printed: string[] = [];
  const keys: string[] = [];

  beforeAll(async () => {
    plugin = copyCommittedPlugin();
    setupProgram = path.join(plugin.root, SETUP_PROGRAM);
    mail = await startMailCatcher();
    api = await startApi({ PERSONA_SMTP_URL: mail.url });
    api.admin("email", "allow", email, "--account", api.accountId);
    browser = await launchChromium();
    context = await browser.newContext();
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "persona-plugin-e2e-")));
    project = path.join(home, "project");
    // A git repository as far as the setup is concerned (it reads .git, never runs git).
    fs.mkdirSync(path.join(project, ".git"), { recursive: true });
    env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    const serviceLog = api?.output() ?? "";
    await api?.stop();
    await mail?.close();
    fs.rmSync(home, { recursive: true, force: true });
    plugin?.remove();
    for (const key of keys) {
      expect(serviceLog.includes(key)).toBe(false);
      for (const text of printed) expect(text.includes(key)).toBe(false);
    }
  });

  /** Opens the login URL and, on the first visit, signs in by the mailed link. */
  async function reachConsent(url: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(url);
    if (new URL(page.url()).pathname === "/sign-in") {
      await page.getByLabel("E-mail address").fill(email);
      await page.getByRole("button", { name: "Send me a sign-in link" }).click();
      await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
      await page.goto(signInLinkIn(await mail.nextMailTo(email)));
      await page.getByRole("button", { name: "Continue" }).click();
    }
    await page.getByRole("heading", { name: "Create a key for your tool?" }).waitFor();
    return page;
  }

  it("signs in, approves, and writes the working key to .env (0600, gitignored) unseen", {
    timeout: 120_000,
  }, async () => {
    const envFile = path.join(project, ".env");
    const before = "# my app\nDATABASE_URL=postgres://127.0.0.1/app\n\nexport GREETING='hello'\n";
    fs.writeFileSync(envFile, before, { mode: 0o644 });
    fs.writeFileSync(path.join(project, ".gitignore"), "node_modules/\n");

    const setup = startSetup(
      [
        "--env-file",
        envFile,
        "--source",
        "claude_code",
        "--yes",
        "--persona-id",
        api.personaId,
        "--base-url",
        api.baseUrl,
        "--name",
        "ada's coding agent",
      ],
      env,
      project,
      setupProgram,
    );
    const page = await reachConsent(await setup.url);
    expect(await page.locator("#key-name").textContent()).toBe("ada's coding agent");
    expect(await page.locator("#source").textContent()).toBe("the Claude Code plugin");
    await saveScreenshot(page, "plugin-setup/01-consent");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Login complete" }).waitFor();
    await saveScreenshot(page, "plugin-setup/02-callback");
    expect(await page.locator("p").first().textContent()).toMatch(
      /^Claude Code \(the Persona Reply plugin\) received your new key \(prk_…\w{4}\)\.$/u,
    );
    expect(await page.content()).toContain("go back to Claude Code.");
    printed.push(await page.content());
    await page.close();

    expect(await setup.exit).toBe(0);
    printed.push(setup.stdout(), setup.stderr());
    // persona-mcp's flag for its env file is --dotenv (Node would take --env-file itself).
    expect(setup.stdout()).toContain("or the file its --dotenv flag names");
    expect(setup.stdout()).not.toContain("--env-file");
    const text = fs.readFileSync(envFile, "utf8");
    const values = readEnvValues(text);
    const key = values.SERVICE_API_KEY ?? "";
    keys.push(key);
    expect(key).toMatch(/^prk_[0-9A-Za-z]{38}$/u);
    expect(values).toMatchObject({
      SERVICE_PERSONA_ID: api.personaId,
      SERVICE_BASE_URL: api.baseUrl,
      DATABASE_URL: "postgres://127.0.0.1/app",
      GREETING: "hello",
    });
    expect(text.startsWith(before)).toBe(true);
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(path.join(project, ".gitignore"), "utf8")).toBe(
      `node_modules/\n${GITIGNORE_COMMENT}\n/.env\n`,
    );
    expect(setup.stdout()).toContain(
      `Saved the new API key prk_…${key.slice(-4)} to ${envFile} as SERVICE_API_KEY, SERVICE_PERSONA_ID, SERVICE_BASE_URL (file mode 0600).`,
    );
    expect(setup.stdout()).toContain(`Added /.env to ${path.join(project, ".gitignore")}`);
    const names = JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
      name: string;
    }>;
    expect(names.map((entry) => entry.name)).toContain("ada's coding agent");

    // The key works: persona-mcp, started as .mcp.json says in the project, reads it from .env.
    const agentEnvironment = { PATH: process.env.PATH ?? "", ...env };
    const connection = await connectAsMcpJsonSays(agentEnvironment, project, plugin.root);
    try {
      const result = await connection.client.callTool({
        name: "generate",
        arguments: { message: "Hi! Which herbs grow well on a balcony?" },
      });
      const reply = (result.content as Array<{ type: string; text?: string }>)
        .map((part) => part.text ?? "")
        .join("\n");
      expect(result.isError ?? false).toBe(false);
      expect(reply.trim().length).toBeGreaterThan(0);
      expect(result.structuredContent).toMatchObject({ finalReply: expect.any(String) });
    } finally {
      await connection.close();
      printed.push(connection.stderr());
    }
  });

  it("replaces the key only with --force, keeping the other lines and the .gitignore entry (callback on a chosen port)", {
    timeout: 120_000,
  }, async () => {
    const callbackPort = await freePort();
    const envFile = path.join(project, ".env");
    const old = readEnvValues(fs.readFileSync(envFile, "utf8")).SERVICE_API_KEY ?? "";
    const setup = startSetup(
      [
        "--env-file",
        envFile,
        "--source",
        "claude_code",
        "--yes",
        "--force",
        "--base-url",
        api.baseUrl,
        "--callback-port",
        String(callbackPort),
      ],
      env,
      project,
      setupProgram,
    );
    const url = await setup.url;
    const redirect = new URL(new URL(url).searchParams.get("redirect_uri") ?? "");
    expect(redirect.port).toBe(String(callbackPort));
    const page = await reachConsent(url);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Login complete" }).waitFor();
    printed.push(await page.content());
    await page.close();
    expect(await setup.exit).toBe(0);
    printed.push(setup.stdout(), setup.stderr());

    const values = readEnvValues(fs.readFileSync(envFile, "utf8"));
    keys.push(values.SERVICE_API_KEY ?? "");
    expect(values.SERVICE_API_KEY).toMatch(/^prk_/u);
    expect(values.SERVICE_API_KEY).not.toBe(old);
    expect(values).toMatchObject({
      SERVICE_PERSONA_ID: api.personaId,
      DATABASE_URL: "postgres://127.0.0.1/app",
    });
    expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
    expect(setup.stdout()).toContain(`git already ignores ${envFile}.`);
    expect(
      fs.readFileSync(path.join(project, ".gitignore"), "utf8").match(/\/\.env/gu),
    ).toHaveLength(1);
  });

  it("reports a denial clearly and changes no file", { timeout: 120_000 }, async () => {
    const other = path.join(home, "denied");
    fs.mkdirSync(path.join(other, ".git"), { recursive: true });
    fs.writeFileSync(path.join(other, ".env"), "PORT=3000\n", { mode: 0o644 });
    const before = snapshot(other);
    const setup = startSetup(
      ["--env-file", ".env", "--source", "codex", "--yes", "--base-url", api.baseUrl],
      env,
      other,
      setupProgram,
    );
    const page = await reachConsent(await setup.url);
    expect(await page.locator("#source").textContent()).toBe("the Codex plugin");
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByRole("heading", { name: "Login not completed" }).waitFor();
    await saveScreenshot(page, "plugin-setup/03-denied");
    await page.close();
    expect(await setup.exit).toBe(1);
    printed.push(setup.stdout(), setup.stderr());
    expect(setup.stderr()).toContain(
      "The login was denied in the browser: no key was created and nothing was written.",
    );
    expect(snapshot(other)).toEqual(before);
  });
});
