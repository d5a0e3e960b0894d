import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithBrowser, launchChromium } from "../../test-support/browser.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import { startPageServer } from "./support/browser-page-server.js";

// The library entry in a real browser (Debian's Chromium, headless): the
// built ES modules, loaded without a bundler, call the real service with the
// browser's own fetch. Proves the entry needs no Node module.

let api: ApiFixture;
let page: Awaited<ReturnType<typeof startPageServer>>;
let browser: Browser;

// Skipped, visibly, without Debian's chromium; a failure under CI=true.
describeWithBrowser("the library in a browser", () => {
  beforeAll(async () => {
    api = await startApi();
    page = await startPageServer(api.baseUrl);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await page?.close();
    await api?.stop();
  });

  it("generates, personifies and throws typed errors with the browser's fetch", async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (error) => errors.push(error.message));
    await tab.goto(page.url);
    await tab.waitForFunction(() => "personaLibrary" in globalThis);
    const outcome = await tab.evaluate(
      async ({ apiKey, personaId }) => {
        // The page's own module script loaded the library (this test compiles without DOM types).
        const scope = globalThis as unknown as {
          personaLibrary: typeof import("../src/index.js");
          location: { origin: string };
        };
        const library = scope.personaLibrary;
        const origin = scope.location.origin;
        const client = new library.PersonaClient({ apiKey, personaId, baseUrl: origin });
        const reply = await client.generate({
          messages: [{ role: "user", content: "Hello from a browser!" }],
          includeVariations: true,
        });
        const rewritten = await client.personify({ raw: "The seed swap is on Saturday." });
        const stranger = new library.PersonaClient({
          apiKey: `${apiKey.slice(0, -1)}${apiKey.endsWith("A") ? "B" : "A"}`,
          personaId,
          baseUrl: origin,
        });
        let failure: Record<string, unknown> = {};
        try {
          await stranger.generate({ messages: [{ role: "user", content: "Hi" }] });
        } catch (error) {
          failure = {
            name: (error as Error).name,
            authentication: error instanceof library.AuthenticationError,
            root: error instanceof library.PersonaError,
            status: (error as { status: number }).status,
            message: (error as Error).message,
          };
        }
        let configuration = "";
        try {
          new library.PersonaClient({ personaId, baseUrl: origin });
        } catch (error) {
          configuration = (error as Error).name;
        }
        return {
          hasProcess: typeof (globalThis as { process?: unknown }).process !== "undefined",
          reply,
          rewritten,
          failure,
          configuration,
        };
      },
      { apiKey: api.apiKey, personaId: api.personaId },
    );
    expect(errors).toEqual([]);
    expect(outcome.hasProcess).toBe(false);
    expect(outcome.reply.finalReply.length).toBeGreaterThan(0);
    expect(outcome.reply.replyChoices).toContain(outcome.reply.finalReply);
    expect(outcome.rewritten.personified).toContain("Saturday");
    expect(outcome.failure).toMatchObject({
      name: "AuthenticationError",
      authentication: true,
      root: true,
      status: 401,
    });
    expect(outcome.failure.message).toMatch(/^invalid API key/u);
    expect(outcome.configuration).toBe("ConfigurationError");
    await tab.close();
  });
});
