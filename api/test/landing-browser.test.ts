import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithBrowser, launchChromium, saveScreenshot } from "../../test-support/browser.js";
import { startTestService, type TestService } from "./support/test-service.js";

// The service root as a first-time visitor meets it, in Debian's chromium:
// a page saying what this is, with its links and the site icon.

describeWithBrowser("the landing page (GET /) in a real browser", () => {
  let service: TestService;
  let browser: Browser;
  beforeAll(async () => {
    service = await startTestService();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("says what the service is, links the reference, playground, keys and sign-in, and has an icon", async () => {
    const page = await browser.newPage({ baseURL: service.url });
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));

    const response = await page.goto("/");
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-type"]).toMatch(/^text\/html/u);
    await page.getByRole("heading", { level: 1 }).waitFor();
    expect(await page.title()).toContain("Persona Reply");
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain("hosted API");
    expect(text).toContain(`${service.url}/api/v1`);
    const start = page.getByRole("navigation", { name: "Start here" });
    for (const [name, href] of [
      ["API reference", "/docs"],
      ["Playground", "/playground"],
      ["API keys", "/keys"],
      ["Sign in", "/sign-in"],
    ] as const) {
      expect(await start.getByRole("link", { name, exact: true }).getAttribute("href")).toBe(href);
    }
    expect(await page.locator('link[rel="icon"]').getAttribute("href")).toBe("/favicon.ico");
    // The linked icon is an image the browser decodes (headless chromium does not fetch icons itself).
    const icon = await page.evaluate(`(async () => {
      const image = new Image();
      image.src = document.querySelector('link[rel="icon"]').href;
      await image.decode();
      return [image.naturalWidth, image.naturalHeight];
    })()`);
    expect(icon).toEqual([32, 32]);
    await saveScreenshot(page, "landing/01-landing");

    await start.getByRole("link", { name: "API reference" }).click();
    await page.waitForURL("**/docs");
    await page.getByRole("link", { name: "Persona Reply" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    expect(problems).toEqual([]);
  });
});
