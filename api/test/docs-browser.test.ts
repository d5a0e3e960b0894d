import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  ARTIFACTS_DIRECTORY,
  describeWithBrowser,
  launchChromium,
} from "../../test-support/browser.js";
import { startTestService, type TestService } from "./support/test-service.js";

describeWithBrowser("the API reference page (/docs) in a real browser", () => {
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

  it("renders every operation without script or style errors, and links into the schemas", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    const response = await page.goto(`${service.url}/docs`);
    expect(response?.status()).toBe(200);
    expect(await page.locator("h1").textContent()).toBe("API reference");
    const operations = page.locator("section.operation");
    expect(await operations.count()).toBeGreaterThanOrEqual(20);
    const generate = page.locator("#operation-generate");
    expect(await generate.locator("h3").textContent()).toContain("POST /api/v1/generate");
    const generateText = (await generate.textContent()) ?? "";
    expect(generateText).toContain("text/plain");
    expect(generateText).toContain("rate_limited");
    await page.locator('#operation-generate a[href="#schema-GenerateRequest"]').first().click();
    // Browser-side expressions as text: this package's tests are typechecked without DOM types.
    await page.waitForFunction('window.location.hash === "#schema-GenerateRequest"');
    // The link led somewhere real: the schema's section exists and the page scrolled down to it.
    expect(
      await page.evaluate(
        "document.querySelector(window.location.hash) !== null && window.scrollY > 0",
      ),
    ).toBe(true);
    expect(await page.locator("#schema-RateLimit").textContent()).toContain("window");
    expect(problems).toEqual([]);
    const folder = path.join(ARTIFACTS_DIRECTORY, "docs");
    fs.mkdirSync(folder, { recursive: true });
    await page.goto(`${service.url}/docs`);
    await page.screenshot({ path: path.join(folder, "01-top.png") });
    await generate.screenshot({ path: path.join(folder, "02-generate.png") });
    await page
      .locator("#schema-CompletionRequest")
      .screenshot({ path: path.join(folder, "03-completion-request-schema.png") });
  });
});
