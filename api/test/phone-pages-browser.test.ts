import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse } from "yaml";
import {
  ARTIFACTS_DIRECTORY,
  describeWithBrowser,
  horizontalOverflows,
  launchChromium,
  saveScreenshot,
} from "../../test-support/browser.js";
import { AllowedEmailStore } from "../src/playground/allowed-email-store.js";
import { SessionStore } from "../src/playground/session-store.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { startTestService, type TestService } from "./support/test-service.js";
import { insertFundedAccount, writeChargedUsage } from "./support/usage-ledger.js";

// The service's pages on a phone (390 × 844, Debian's chromium), with
// JavaScript and without: a one-row header whose menu opens without
// JavaScript, a /usage page that stays short while the data is (a table of
// the days instead of charts) and charts that start when the account did,
// /docs readable without JavaScript, and its search box inside its
// sidebar. Screenshots go to test-artifacts/phone/ (gitignored).

const PHONE = { width: 390, height: 844 } as const;
const DESKTOP = { width: 1280, height: 900 } as const;
const DAY = 86_400_000;
/** The history account's first day: 12 days ago. */
const HISTORY_DAYS = 12;

/** A viewport screenshot's path under test-artifacts/phone/ (/docs is too tall for a full-page one). */
function artifact(name: string): string {
  const folder = path.join(ARTIFACTS_DIRECTORY, "phone");
  fs.mkdirSync(folder, { recursive: true });
  return path.join(folder, name);
}

/** `YYYY-MM-DD` of `daysAgo` days before today (UTC). */
function dayOf(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
}

describeWithBrowser("the pages on a phone, with and without JavaScript", () => {
  let service: TestService;
  let browser: Browser;
  /** A session of the test account: everything it did, it did today. */
  let newcomer: string;
  /** A session of an account opened 12 days ago, with requests on 4 days since. */
  let veteran: string;

  async function session(accountId: string, email: string): Promise<string> {
    await new AllowedEmailStore(service.services.database).allow(email, accountId);
    const sessions = new SessionStore(service.services.database, 3_600_000);
    return (await sessions.create({ accountId, email, userAgent: "test" })).token;
  }

  beforeAll(async () => {
    service = await startTestService();
    for (let count = 0; count < 3; count += 1) {
      const response = await service.post("/api/v1/generate", {
        personaId: service.persona.id,
        messages: [{ role: "user", content: "Hi" }],
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    newcomer = await session(service.accountId, "new@example.com");

    const { database } = service.services;
    const accountId = randomUUID();
    const at = (daysAgo: number, hour: number) =>
      `${dayOf(daysAgo)}T${String(hour).padStart(2, "0")}:00:00.000Z`;
    await insertFundedAccount(database, {
      id: accountId,
      name: "Twelve days",
      createdAt: at(HISTORY_DAYS, 9),
      balanceMicros: 5_000_000,
    });
    const juniper = await service.services.personas.create(accountId, readExamplePersona());
    const bo = await service.services.personas.create(accountId, {
      ...readExamplePersona(),
      name: "Bo",
    });
    for (const [daysAgo, personaId, costMicros] of [
      [9, juniper.id, 1_200],
      [9, bo.id, 800],
      [5, juniper.id, 3_000],
      [2, bo.id, 500],
      [0, juniper.id, 700],
    ] as const) {
      await writeChargedUsage(database, { accountId, personaId, costMicros }, at(daysAgo, 10));
    }
    veteran = await session(accountId, "veteran@example.com");
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
  });

  async function open(
    token: string,
    options: { javaScript: boolean; viewport?: { width: number; height: number } },
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({
      baseURL: service.url,
      viewport: options.viewport ?? PHONE,
      javaScriptEnabled: options.javaScript,
    });
    await context.addCookies([{ name: "persona_session", value: token, url: service.url }]);
    return { context, page: await context.newPage() };
  }

  const height = (page: Page) =>
    page.evaluate("document.documentElement.scrollHeight") as Promise<number>;

  it("keeps the header to one row on a phone, its menu opening without JavaScript", {
    timeout: 180_000,
  }, async () => {
    const found: string[] = [];
    for (const javaScript of [true, false]) {
      const { context, page } = await open(newcomer, { javaScript });
      const where = (path: string) => `${path} (${javaScript ? "JavaScript" : "no JavaScript"})`;
      for (const path of ["/", "/playground", "/keys", "/usage", "/sessions", "/docs"]) {
        expect((await page.goto(path))?.status(), path).toBe(200);
        const header = await page.locator(".site-header").boundingBox();
        if ((header?.height ?? Infinity) > PHONE.height / 8) {
          found.push(`${where(path)}: header ${header?.height} px high`);
        }
        if (await page.getByRole("link", { name: "Usage", exact: true }).isVisible()) {
          found.push(`${where(path)}: the links show before the menu is opened`);
        }
        if (path !== "/docs") {
          for (const overflow of await horizontalOverflows(page)) {
            found.push(`${where(path)}: ${overflow}`);
          }
        }
      }
      await page.goto("/keys");
      await page.getByText("Menu", { exact: true }).click();
      const usage = page.getByRole("link", { name: "Usage", exact: true });
      expect(await usage.isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
      await saveScreenshot(page, `phone/menu-${javaScript ? "js" : "no-js"}`);
      await usage.click();
      await page.waitForURL("**/usage");
      // The new page's menu is closed again: its link is read from the markup.
      expect(await page.locator('.site-header a[href="/usage"]').getAttribute("aria-current")).toBe(
        "page",
      );
      await context.close();
    }
    // On a wide screen the links are in the row, without opening anything.
    const { context, page } = await open(newcomer, { javaScript: false, viewport: DESKTOP });
    await page.goto("/keys");
    expect(await page.getByRole("link", { name: "Usage", exact: true }).isVisible()).toBe(true);
    expect(await page.getByText("Menu", { exact: true }).isVisible()).toBe(false);
    expect((await page.locator(".site-header").boundingBox())?.height).toBeLessThanOrEqual(80);
    await context.close();
    expect(found).toEqual([]);
  });

  it("shows a day of data as a short table, not as charts", { timeout: 120_000 }, async () => {
    for (const javaScript of [true, false]) {
      const { context, page } = await open(newcomer, { javaScript });
      await page.goto("/usage");
      expect(await page.locator("figure.chart").count()).toBe(0);
      const rows = await page.locator("#daily-table tbody tr").allTextContents();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain(dayOf(0));
      // Three phone screens at most, where five 30-day charts took five.
      expect(await height(page)).toBeLessThanOrEqual(3 * PHONE.height);
      expect(await horizontalOverflows(page)).toEqual([]);
      await saveScreenshot(page, `phone/usage-one-day-${javaScript ? "js" : "no-js"}`);
      await context.close();
    }
  });

  it("starts the charts on the account's first day, three of them", {
    timeout: 120_000,
  }, async () => {
    const { context, page } = await open(veteran, { javaScript: false });
    await page.goto("/usage");
    const charts = page.locator("figure.chart");
    expect(
      await charts.evaluateAll((figures) => figures.map((figure) => figure.dataset.chart)),
    ).toEqual(["requests-by-persona", "spend-by-persona", "balance"]);
    // Every chart's first point is the day the account was opened, none before it.
    const days = await page
      .locator('figure[data-chart="balance"] svg[role="img"] title')
      .allTextContents();
    expect(days).toHaveLength(HISTORY_DAYS + 1);
    expect(days[0]).toBe(`Balance · ${dayOf(HISTORY_DAYS)}: 5.00 USD`);
    expect(days.some((title) => title.endsWith(": 0.00 USD"))).toBe(false);
    expect(await horizontalOverflows(page)).toEqual([]);
    await saveScreenshot(page, "phone/usage-twelve-days");
    await context.close();
  });

  it("shows /docs without JavaScript: the document's links and a summary of it", {
    timeout: 120_000,
  }, async () => {
    const { context, page } = await open(newcomer, { javaScript: false });
    await page.goto("/docs");
    const fallback = page.locator(".reference-fallback");
    expect(await fallback.isVisible()).toBe(true);
    expect(await fallback.getByRole("link", { name: "/api/v1/openapi.json" }).isVisible()).toBe(
      true,
    );
    expect(await fallback.getByRole("link", { name: "/api/v1/openapi.yaml" }).isVisible()).toBe(
      true,
    );
    const generate = fallback.getByRole("heading", { name: /POST \/api\/v1\/generate/u });
    expect(await generate.isVisible()).toBe(true);
    expect(await fallback.textContent()).toContain("422");
    expect(await height(page)).toBeGreaterThan(4 * PHONE.height);
    expect(await horizontalOverflows(page)).toEqual([]);
    await page.screenshot({ path: artifact("docs-no-js.png") });
    await context.close();
    // The YAML is the JSON document, written as YAML.
    const json = await (await fetch(`${service.url}/api/v1/openapi.json`)).json();
    const yaml = await fetch(`${service.url}/api/v1/openapi.yaml`);
    expect(yaml.headers.get("content-type")).toMatch(/^application\/yaml/u);
    expect(parse(await yaml.text())).toEqual(json);
  });

  it("keeps the /docs search box inside its sidebar, on a desktop and on a phone", {
    timeout: 120_000,
  }, async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { context, page } = await open(newcomer, { javaScript: true, viewport });
      await page.goto("/docs");
      const search = page.locator(".menu-content .search-input");
      await search.waitFor({ state: "attached", timeout: 20_000 });
      if (viewport === PHONE) {
        // Redoc keeps the sidebar behind its round button at the bottom right.
        const button = (await page.evaluate(`(() => {
          const fixed = [...document.querySelectorAll("#reference div")].find((element) => {
            const box = element.getBoundingClientRect();
            return getComputedStyle(element).position === "fixed" && box.width > 0 && box.width < 100;
          });
          const box = fixed.getBoundingClientRect();
          return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
        })()`)) as { x: number; y: number };
        await page.mouse.click(button.x, button.y);
      }
      await search.waitFor({ state: "visible" });
      const box = await search.boundingBox();
      const sidebar = await page.locator(".menu-content").boundingBox();
      expect(box && sidebar).toBeTruthy();
      if (box === null || sidebar === null) return;
      expect(box.x).toBeGreaterThanOrEqual(sidebar.x);
      expect(box.x + box.width).toBeLessThanOrEqual(sidebar.x + sidebar.width);
      await search.fill("personify");
      await page.screenshot({ path: artifact(`docs-search-${viewport.width}.png`) });
      await context.close();
    }
  });
});
