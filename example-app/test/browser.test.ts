import fs from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  horizontalOverflows,
  saveScreenshot,
  seriousAxeViolations,
} from "../../test-support/browser.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import type { RunningExampleServer } from "../server/server.js";
import {
  CHROMIUM_PATH,
  HAS_CHROMIUM,
  IN_CI,
  launchChromium,
  screenshot,
  watchProblems,
} from "./support/browser.js";
import { buildFrontEnd } from "./support/build-front-end.js";
import {
  callService,
  type StandIn,
  serviceEnvironment,
  startExample,
  startStandIn,
} from "./support/example-fixture.js";

// The example app in a real browser (Debian's chromium through
// playwright-core), on a phone-sized screen, against the real service.
// Screenshots go to test-artifacts/example-app/.

describe.runIf(!HAS_CHROMIUM && IN_CI)("the example app in a real browser (CI)", () => {
  it("needs chromium", () => {
    throw new Error(
      `chromium not found at ${CHROMIUM_PATH}: .ci/run installs it with apt-get install chromium`,
    );
  });
});

const title = HAS_CHROMIUM
  ? "the example app in a real browser"
  : `the example app in a real browser — SKIPPED: no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;

describe.skipIf(!HAS_CHROMIUM)(title, () => {
  let api: ApiFixture;
  let webDirectory: string;
  let example: RunningExampleServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    api = await startApi();
    webDirectory = await buildFrontEnd();
    example = await startExample(serviceEnvironment(api), webDirectory);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await example?.stop();
    await api?.stop();
    if (webDirectory !== undefined) fs.rmSync(webDirectory, { recursive: true, force: true });
  });

  /** A fresh phone-sized page (390 × 844 CSS pixels, touch). */
  async function openPage(url: string): Promise<Page> {
    context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    page = await context.newPage();
    problems = watchProblems(page);
    await page.goto(url);
    // React renders after the script runs; the page is ready once its title is there.
    await page.getByRole("heading", { level: 1 }).waitFor();
    return page;
  }
  afterEach(async () => {
    await context?.close();
    expect(problems).toEqual([]);
  });

  /**
   * Waits until the page shows a result headed `heading`, or an error; an
   * error fails the test with its text.
   */
  async function waitForResult(heading: string): Promise<void> {
    await page.locator(`h2:text-is("${heading}"), [role=alert]`).first().waitFor();
    const alert = page.getByRole("alert");
    if ((await alert.count()) > 0) throw new Error(`the page shows: ${await alert.textContent()}`);
  }

  /** Waits until the conversation holds `count` bubbles of the persona, or an error shows. */
  async function waitForPersonaBubbles(count: number): Promise<void> {
    await page.waitForFunction(
      (expected) =>
        document.querySelector("[role=alert]") !== null ||
        document.querySelectorAll("ol.conversation li.from-persona:not(.typing)").length ===
          expected,
      count,
    );
    const alert = page.getByRole("alert");
    if ((await alert.count()) > 0) throw new Error(`the page shows: ${await alert.textContent()}`);
  }

  /** The visible text of each bubble of a list, without the screen-reader label of the first. */
  async function bubbles(selector: string): Promise<string[]> {
    const texts = await page.locator(selector).allTextContents();
    return texts.map((text) => text.replace(/^(Persona|You):\s*/u, "").trim());
  }

  it("quickstart: type a prompt, submit, see the reply and its chunks", async () => {
    await openPage(`${example.url}/`);
    expect(await page.title()).toBe("Quickstart — Persona Reply example app");
    const prompt = "Hi! Which herbs grow well on a balcony?";
    await page.getByLabel("Prompt").fill(prompt);
    await page.getByRole("button", { name: "Get a reply" }).click();
    await waitForResult("Reply");

    const direct = await callService(api, "completions", { model: api.personaId, prompt });
    const choice = (direct.choices as Array<{ text: string; chunks: string[] }>)[0];
    expect(await page.locator(".reply-text").textContent()).toBe(choice?.text);
    expect(await bubbles("ol[aria-label='Reply chunks'] > li")).toEqual(choice?.chunks);
    expect(await page.locator(".model code").textContent()).toBe(api.personaId);
    await screenshot(page, "quickstart");
  });

  it("chat: each reply is one bubble; focus stays in the composer", async () => {
    await openPage(`${example.url}/chat`);
    const history: Array<{ role: string; content: string }> = [];
    let expectedPersonaBubbles = 0;
    for (const message of ["Hello!", "Can you help me choose herbs for a sunny balcony?"]) {
      const composer = page.getByLabel("Your message");
      await composer.fill(message);
      await composer.press("Enter");
      history.push({ role: "user", content: message });
      const direct = await callService(api, "completions", {
        model: api.personaId,
        messages: history,
      });
      const choice = (direct.choices as Array<{ text: string; chunks: string[] }>)[0];
      history.push({ role: "assistant", content: choice?.text ?? "" });
      // One reply, one bubble, however many chunks the service cut it into.
      expectedPersonaBubbles += 1;
      await waitForPersonaBubbles(expectedPersonaBubbles);
      expect((await bubbles("ol.conversation li.from-persona")).at(-1)).toBe(choice?.text);
    }
    expect(await bubbles("ol.conversation li.from-user")).toEqual([
      "Hello!",
      "Can you help me choose herbs for a sunny balcony?",
    ]);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("message");
    await screenshot(page, "chat");
  });

  it("personify: paste text, submit, see the rewritten text and its chunks", async () => {
    await openPage(`${example.url}/personify`);
    const raw = "The meeting moves to Thursday. Bring the seed catalogue.";
    await page.getByLabel("Source text").fill(raw);
    await page.getByRole("button", { name: "Rewrite in the persona's voice" }).click();
    await waitForResult("Rewritten text");
    const direct = await callService(api, "personify", { personaId: api.personaId, raw });
    expect(await page.locator(".reply-text").textContent()).toBe(direct.personified);
    expect(await bubbles("ol[aria-label='Rewritten chunks'] > li")).toEqual(direct.chunks);
    await screenshot(page, "personify");
  });

  it("a config error names the missing variable when the key is unset", async () => {
    const unconfigured = await startExample(
      { ...serviceEnvironment(api), SERVICE_API_KEY: undefined },
      webDirectory,
    );
    try {
      await openPage(`${unconfigured.url}/`);
      await page.getByLabel("Prompt").fill("Hello!");
      await page.getByRole("button", { name: "Get a reply" }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor();
      expect(await alert.getAttribute("data-error-type")).toBe("config");
      const text = await alert.textContent();
      expect(text).toContain("The example server is not configured");
      expect(text).toContain("SERVICE_API_KEY is not set");
      await screenshot(page, "config-error");
    } finally {
      await unconfigured.stop();
    }
  });

  it("a validation error says what to fix", async () => {
    await openPage(`${example.url}/personify`);
    await page.getByRole("button", { name: "Rewrite in the persona's voice" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.getAttribute("data-error-type")).toBe("validation");
    expect(await alert.textContent()).toContain("raw: must be non-empty text");
    await screenshot(page, "validation-error");
  });

  it("a service that cannot be reached is titled so, without its address", async () => {
    const probe = await import("node:net").then(
      (net) =>
        new Promise<number>((resolve) => {
          const server = net.createServer().listen(0, "127.0.0.1", () => {
            const { port } = server.address() as { port: number };
            server.close(() => resolve(port));
          });
        }),
    );
    const unreachable = await startExample(
      { ...serviceEnvironment(api), SERVICE_BASE_URL: `http://127.0.0.1:${probe}` },
      webDirectory,
    );
    try {
      await openPage(`${unreachable.url}/`);
      await page.getByLabel("Prompt").fill("Hello!");
      await page.getByRole("button", { name: "Get a reply" }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor();
      expect(await alert.getAttribute("data-error-type")).toBe("provider");
      expect(await alert.locator(".notice-title").textContent()).toBe(
        "The service could not be reached",
      );
      const text = (await alert.textContent()) ?? "";
      expect(text).not.toContain("answered with an error");
      expect(text).not.toContain(String(probe));
      expect(text).not.toContain("127.0.0.1");
      await screenshot(page, "service-unreachable");
    } finally {
      await unreachable.stop();
    }
  });

  it("an unknown path gets a 404 with the app's own page, not express's", async () => {
    context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    page = await context.newPage();
    problems = watchProblems(page);
    const response = await page.goto(`${example.url}/no/such/page`);
    expect(response?.status()).toBe(404);
    await page.getByRole("heading", { level: 1, name: "Page not found" }).waitFor();
    expect(await page.title()).toBe("Not found — Persona Reply example app");
    expect(await page.content()).not.toContain("Cannot GET");
    await page.getByRole("main").getByRole("link", { name: "quickstart" }).click();
    await page.waitForURL(`${example.url}/`);
    await page.getByRole("heading", { level: 1, name: "Quickstart" }).waitFor();
    await screenshot(page, "not-found");
  });

  it("'Use another persona' stays open while its field is edited, even emptied", async () => {
    await openPage(`${example.url}/personify`);
    const section = page.locator("details.persona-field");
    expect(await section.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
    await page.getByText("Use another persona (optional)").click();
    const field = page.getByLabel("Persona ID");
    await field.fill("3e7b8c9d");
    // Select all and delete, then type again: the section never folds away under the cursor.
    await field.press("ControlOrMeta+a");
    await field.press("Backspace");
    expect(await field.inputValue()).toBe("");
    expect(await section.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(true);
    expect(await field.isVisible()).toBe(true);
    await field.pressSequentially(api.personaId);
    expect(await section.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(true);
    // The person can still fold it away, value and all.
    await page.getByText("Use another persona (optional)").click();
    expect(await section.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
    expect(await field.inputValue()).toBe(api.personaId);
  });

  describe("chat when the service fails once", () => {
    let standIn: StandIn;
    let flaky: RunningExampleServer;
    beforeAll(async () => {
      // Stands in for the service: the first call fails with the service's
      // 503 body, later ones are passed on to the real service.
      let calls = 0;
      standIn = await startStandIn(async ({ path, body, headers }, response) => {
        calls += 1;
        if (calls === 1) {
          response.writeHead(503, { "content-type": "application/json" });
          response.end(
            JSON.stringify({
              error: {
                message: "the model provider is unavailable",
                type: "server_error",
                param: null,
                code: null,
              },
            }),
          );
          return;
        }
        const upstream = await fetch(`${api.baseUrl}${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: headers.authorization ?? "",
          },
          body,
        });
        response.writeHead(upstream.status, { "content-type": "application/json" });
        response.end(await upstream.text());
      });
      flaky = await startExample(
        { ...serviceEnvironment(api), SERVICE_BASE_URL: standIn.url },
        webDirectory,
      );
    });
    afterAll(async () => {
      await flaky?.stop();
      await standIn?.close();
    });

    it("shows the provider error, and Try again sends the same history", async () => {
      await openPage(`${flaky.url}/chat`);
      const composer = page.getByLabel("Your message");
      await composer.fill("Hello!");
      await composer.press("Enter");
      const alert = page.getByRole("alert");
      await alert.waitFor();
      expect(await alert.getAttribute("data-error-type")).toBe("provider");
      const text = await alert.textContent();
      expect(text).toContain("The service answered with an error (502)");
      expect(text).toContain("the model provider is unavailable");
      expect(await bubbles("ol.conversation li.from-user")).toEqual(["Hello!"]);
      await screenshot(page, "chat-provider-error");

      await page.getByRole("button", { name: "Try again" }).click();
      await page.getByRole("alert").waitFor({ state: "detached" });
      const direct = await callService(api, "completions", {
        model: api.personaId,
        messages: [{ role: "user", content: "Hello!" }],
      });
      const replyText = (direct.choices as Array<{ text: string }>)[0]?.text ?? "";
      await waitForPersonaBubbles(1);
      expect(await bubbles("ol.conversation li.from-persona")).toEqual([replyText]);
      expect(await page.getByRole("alert").count()).toBe(0);
      expect(standIn.requests).toEqual(["/api/v1/completions", "/api/v1/completions"]);
    });
  });

  it("every page at desktop and phone width, light and dark: axe clean, nothing wider than the screen or its card", {
    timeout: 400_000,
  }, async () => {
    const found: string[] = [];
    for (const colorScheme of ["light", "dark"] as const) {
      for (const viewport of [
        { name: "desktop", width: 1280, height: 900 },
        { name: "phone", width: 390, height: 844 },
      ] as const) {
        context = await browser.newContext({
          viewport: { width: viewport.width, height: viewport.height },
          colorScheme,
        });
        page = await context.newPage();
        problems = watchProblems(page);
        for (const [name, path] of [
          ["quickstart", "/"],
          ["chat", "/chat"],
          ["personify", "/personify"],
        ] as const) {
          await page.goto(`${example.url}${path}`);
          await page.getByRole("heading", { level: 1 }).waitFor();
          if (name === "chat") {
            const composer = page.getByLabel("Your message");
            await composer.fill("I'm planning a weekend trip to Lisbon. Any tips on what to see?");
            await composer.press("Enter");
            await waitForPersonaBubbles(1);
          }
          const where = `${name} (${viewport.name}, ${colorScheme})`;
          for (const overflow of await horizontalOverflows(page))
            found.push(`${where}: ${overflow}`);
          for (const violation of await seriousAxeViolations(page)) {
            found.push(`${where}: ${violation}`);
          }
          await saveScreenshot(page, `example-app/${colorScheme}/${viewport.name}/${name}`);
        }
        await context.close();
      }
    }
    expect(found).toEqual([]);
  });

  it("keyboard: the skip link comes first, and navigating moves focus to the new page's title", async () => {
    await openPage(`${example.url}/`);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    await page.getByRole("link", { name: "Personify" }).click();
    await page.waitForURL(`${example.url}/personify`);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Personify");
    expect(await page.getByRole("link", { name: "Personify" }).getAttribute("aria-current")).toBe(
      "page",
    );
    expect(await page.title()).toBe("Personify — Persona Reply example app");
    await page.goBack();
    await page.waitForURL(`${example.url}/`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Quickstart");
  });
});
