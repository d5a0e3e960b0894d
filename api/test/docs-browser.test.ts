import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  ARTIFACTS_DIRECTORY,
  describeWithBrowser,
  launchChromium,
  seriousAxeViolations,
} from "../../test-support/browser.js";
import type { OpenApiDocument } from "../src/openapi/openapi-document.js";
import { startTestService, type TestService } from "./support/test-service.js";

// /docs is Redoc's rendering of the served OpenAPI document. These checks
// run it in chromium under the page's real Content-Security-Policy.

/** A screenshot's path under test-artifacts/docs/ (the reference is too tall for one full-page picture). */
function artifact(name: string): string {
  const folder = path.join(ARTIFACTS_DIRECTORY, "docs");
  fs.mkdirSync(folder, { recursive: true });
  return path.join(folder, name);
}

/** Opens /docs and waits for Redoc's sidebar; collects console errors, CSP violations and requests elsewhere. */
async function openReference(browser: Browser, url: string, width: number, height: number) {
  const page = await browser.newPage({ viewport: { width, height } });
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("request", (request) => {
    const local = /^(blob|data):/u.test(request.url()) || request.url().startsWith(url);
    if (!local) problems.push(`request elsewhere: ${request.url()}`);
  });
  await page.addInitScript(`document.addEventListener("securitypolicyviolation", (event) => {
    console.error("CSP violation: " + event.violatedDirective + " " + event.blockedURI);
  });`);
  const response = await page.goto(`${url}/docs`);
  expect(response?.status()).toBe(200);
  await page.locator(".menu-content").waitFor({ state: "attached", timeout: 20_000 });
  await page
    .locator('[data-section-id="tag/API/operation/generate"]')
    .waitFor({ state: "attached", timeout: 20_000 });
  return { page, problems };
}

/** Widths of the page and of any element wider than the viewport (ignoring scroll containers' content). */
const OVERFLOW = `(() => {
  const width = document.documentElement.clientWidth;
  const wide = [document.documentElement.scrollWidth > width ? "page " + document.documentElement.scrollWidth : ""];
  for (const element of document.querySelectorAll("body *")) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    let clipped = false;
    for (let parent = element.parentElement; parent; parent = parent.parentElement) {
      const style = getComputedStyle(parent);
      if (style.overflowX !== "visible" || style.position === "fixed") { clipped = true; break; }
    }
    if (!clipped && (box.right > width + 1 || box.left < -1)) {
      wide.push(element.tagName.toLowerCase() + "." + String(element.className).slice(0, 40) + " " + Math.round(box.left) + ".." + Math.round(box.right));
    }
  }
  return wide.filter(Boolean).slice(0, 10);
})()`;

describeWithBrowser("the API reference page (/docs) in a real browser", () => {
  let service: TestService;
  let browser: Browser;
  let document: OpenApiDocument;
  beforeAll(async () => {
    service = await startTestService();
    browser = await launchChromium();
    document = (await (
      await fetch(`${service.url}/api/v1/openapi.json`)
    ).json()) as OpenApiDocument;
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  it("lists every operation in the sidebar, shows §7's error formats and copyable samples, offline and within the CSP", async () => {
    const { page, problems } = await openReference(browser, service.url, 1280, 900);
    const sidebar = (await page.locator(".menu-content").textContent()) ?? "";
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        expect(sidebar, operation?.operationId).toContain(operation?.summary);
      }
    }
    // A sidebar entry navigates to its operation.
    await page.locator('li[data-item-id="tag/API"] > label').click();
    await page.locator('li[data-item-id="tag/API/operation/personify"] > label').click();
    await page.waitForFunction('window.location.hash === "#tag/API/operation/personify"');
    const generate = page.locator('[data-section-id="tag/API/operation/generate"]');
    const text = (await generate.textContent()) ?? "";
    // The error responses of docs/API.md §7: plain text 4xx, JSON 429/5xx, the x402 402.
    for (const status of ["400", "401", "402", "422", "429", "500", "502", "504"]) {
      expect(text, status).toContain(status);
    }
    await generate.getByRole("button", { name: /^401/u }).first().click();
    expect((await generate.textContent()) ?? "").toContain("text/plain");
    // Request and response samples, each with a Copy button.
    expect(text).toContain("Request samples");
    expect(text).toContain("Response samples");
    expect(await generate.getByRole("button", { name: "Copy" }).count()).toBeGreaterThanOrEqual(2);
    expect(text).toContain("Which herbs grow well on a balcony?");
    expect(await page.evaluate(OVERFLOW)).toEqual([]);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: artifact("desktop.png") });
    await generate.screenshot({ path: artifact("desktop-generate.png") });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("fits a phone: no horizontal overflow, axe clean, the operations behind the menu button", async () => {
    const { page, problems } = await openReference(browser, service.url, 390, 844);
    expect(await page.evaluate(OVERFLOW)).toEqual([]);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: artifact("phone.png") });
    await page.locator('[data-section-id="tag/API/operation/generate"]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: artifact("phone-generate.png") });
    expect(problems).toEqual([]);
    await page.close();
  });
});
