import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { LOGIN_PATH } from "@persona-reply/shared";
import Database from "better-sqlite3";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeWithBrowser,
  launchChromium,
  saveScreenshot,
  seriousAxeViolations,
} from "../../test-support/browser.js";
import {
  type MailCatcher,
  signInLinkIn,
  startMailCatcher,
} from "../../test-support/mail-catcher.js";
import {
  type ApiFixture,
  EXAMPLE_PERSONA_FILE,
  startApi,
} from "../../test-support/spawn-service.js";

// The customer's console as a person uses it, in Debian's chromium: sign in,
// make two keys, call the API with them on two personas, then find on /usage
// the day's totals, the table, the CSV and the rate-limit windows matching
// the usage rows in the store. axe-core checks every page the service
// serves; screenshots at desktop and phone width go to test-artifacts/
// (gitignored), with keys shown once masked.

const email = "mae@example.com";
const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "phone", width: 375, height: 740 },
] as const;

interface UsageRow {
  day: string;
  persona_id: string;
  endpoint: string;
  requests: number;
  served: number;
  cost_micros: number;
}

/** The micro-units as the page writes them (at least two decimals). */
function money(micros: number): string {
  const whole = Math.trunc(micros / 1_000_000);
  const fraction = String(micros % 1_000_000)
    .padStart(6, "0")
    .replace(/0+$/u, "")
    .padEnd(2, "0");
  return `${whole}.${fraction}`;
}

describeWithBrowser("usage console in a real browser", () => {
  let mail: MailCatcher;
  let api: ApiFixture;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let secondPersonaId: string;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    mail = await startMailCatcher();
    api = await startApi({ PERSONA_SMTP_URL: mail.url });
    api.admin("email", "allow", email, "--account", api.accountId);
    const personaFile = path.join(api.directory, "second-persona.json");
    const example = JSON.parse(fs.readFileSync(EXAMPLE_PERSONA_FILE, "utf8")) as Record<
      string,
      unknown
    >;
    fs.writeFileSync(personaFile, JSON.stringify({ ...example, name: "Bo the Gardener" }));
    secondPersonaId = api.admin(
      "persona",
      "create",
      "--account",
      api.accountId,
      "--file",
      personaFile,
    );
    browser = await launchChromium();
    context = await browser.newContext({ baseURL: api.baseUrl });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    const output = api?.output() ?? "";
    await api?.stop();
    await mail?.close();
    for (const key of Object.values(keys)) expect(output.includes(key)).toBe(false);
  });

  function call(key: string, endpoint: "generate" | "personify", personaId: string) {
    const body =
      endpoint === "generate"
        ? { personaId, messages: [{ role: "user", content: "Hi" }] }
        : { personaId, raw: "The meeting moves to Thursday." };
    return fetch(`${api.baseUrl}/api/v1/${endpoint}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify(body),
    });
  }

  /** The usage rows of the account in the store, summed as the page sums them. */
  function usageRows(): UsageRow[] {
    const database = new Database(path.join(api.directory, "data", "persona-reply.sqlite"), {
      readonly: true,
      fileMustExist: true,
    });
    try {
      return database
        .prepare(
          `select substr(created_at, 1, 10) as day, persona_id, endpoint, count(*) as requests,
             sum(case when status = 200 then 1 else 0 end) as served, sum(cost_micros) as cost_micros
           from usage_records where account_id = ? group by 1, 2, 3 order by 1 desc, 2, 3`,
        )
        .all(api.accountId) as UsageRow[];
    } finally {
      database.close();
    }
  }

  it("signs in, makes two keys and calls the API with them on two personas", {
    timeout: 120_000,
  }, async () => {
    await page.goto("/keys");
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await page.getByLabel("E-mail address").fill(email);
    await page.getByRole("button", { name: "Send me a sign-in link" }).click();
    await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
    await page.goto(signInLinkIn(await mail.nextMailTo(email)));
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL("**/keys");
    for (const name of ["laptop", "server"]) {
      await page.getByLabel("Name").fill(name);
      await page.getByRole("button", { name: "Create key" }).click();
      const shown = page.locator("#new-key");
      await shown.waitFor();
      keys[name] = ((await shown.textContent()) ?? "").trim();
    }
    expect(keys.laptop).toMatch(/^prk_/u);
    expect(keys.server).toMatch(/^prk_/u);
    const laptop = keys.laptop ?? "";
    const server = keys.server ?? "";
    for (let count = 0; count < 3; count += 1) {
      expect((await call(laptop, "generate", api.personaId)).status).toBe(200);
    }
    for (let count = 0; count < 2; count += 1) {
      expect((await call(server, "generate", secondPersonaId)).status).toBe(200);
    }
    expect((await call(server, "personify", api.personaId)).status).toBe(200);
  });

  it("shows the day's totals, table, CSV and rate limits matching the usage rows", {
    timeout: 120_000,
  }, async () => {
    await page.getByRole("link", { name: "Usage" }).click();
    await page.getByRole("heading", { name: "Usage", level: 1 }).waitFor();
    expect(await page.getByRole("link", { name: "Usage" }).getAttribute("aria-current")).toBe(
      "page",
    );
    const rows = usageRows();
    expect(rows.length).toBe(3);
    const names = new Map(
      (
        JSON.parse(api.admin("persona", "list", "--account", api.accountId)) as Array<{
          id: string;
          name: string;
        }>
      ).map((persona) => [persona.id, persona.name]),
    );
    expect(names.get(secondPersonaId)).toBe("Bo the Gardener");
    const personaName = (id: string) => names.get(id) ?? id;

    // The table: one row per day, persona and endpoint, newest first.
    const table = await page
      .locator("#usage-table tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "")),
      );
    const byText = (a: unknown[], b: unknown[]) => String(a).localeCompare(String(b));
    expect([...table].sort(byText)).toEqual(
      rows
        .map((row) => [
          row.day,
          personaName(row.persona_id),
          `/${row.endpoint}`,
          String(row.requests),
          String(row.served),
          expect.any(String),
          expect.any(String),
          money(row.cost_micros),
        ])
        .sort(byText),
    );
    // Newest day first, then by persona name.
    expect(table.map((cells) => cells[1])).toEqual(
      [...table.map((cells) => cells[1])].sort((a, b) => String(a).localeCompare(String(b))),
    );

    // One day of requests: the days are listed instead of charted (charts start with
    // requests on three days; api/test/pages-layout-browser.test.ts draws them).
    expect(await page.locator("figure.chart").count()).toBe(0);
    const spent = rows.reduce((total, row) => total + row.cost_micros, 0);
    expect(spent).toBeGreaterThan(0);
    expect(await page.locator("#spend-total").textContent()).toBe(`${money(spent)} USD`);
    const days = await page
      .locator("#daily-table tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "")),
      );
    expect(days).toEqual([
      [
        rows[0]?.day,
        String(rows.reduce((total, row) => total + row.requests, 0)),
        money(spent),
        expect.any(String),
      ],
    ]);

    // Rate limits: each key's windows as counted (defaults of docs/API.md §8.1).
    for (const [name, used] of [
      ["laptop", 3],
      ["server", 3],
    ] as const) {
      const cells = await page
        .locator("table.limits tbody tr", { has: page.locator("th", { hasText: name }) })
        .locator("td")
        .allTextContents();
      expect(cells[1]).toBe(`${used} of 25`);
    }

    // The CSV has the table's figures.
    const csv = await (await page.request.get("/usage.csv")).text();
    const csvLines = csv.trim().split("\r\n");
    expect(csvLines[0]).toMatch(/^day,persona_id,persona_name,endpoint,requests/u);
    expect(csvLines.slice(1).map((line) => line.split(",").slice(0, 5).join(","))).toEqual(
      [...rows]
        .sort(
          (a, b) =>
            a.day.localeCompare(b.day) ||
            a.persona_id.localeCompare(b.persona_id) ||
            a.endpoint.localeCompare(b.endpoint),
        )
        .map((row) =>
          [row.day, row.persona_id, personaName(row.persona_id), row.endpoint, row.requests].join(
            ",",
          ),
        ),
    );
  });

  it("has no serious accessibility violations on any page, at desktop and phone width", {
    timeout: 240_000,
  }, async () => {
    const { publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const jwk = Buffer.from(JSON.stringify(publicKey.export({ format: "jwk" }))).toString(
      "base64url",
    );
    const consent = `${LOGIN_PATH}?${new URLSearchParams({
      state: "q8Jd1-Xc2VbN3mZ4aS5dF6gH7jK8lP9o0iU_yT",
      redirect_uri: "http://127.0.0.1:53682/callback",
      recipient_public_key_jwk: jwk,
      name: "laptop CLI",
      source: "cli",
    })}`;
    const pages: Array<[string, string]> = [
      ["landing", "/"],
      ["docs", "/docs"],
      ["keys", "/keys"],
      ["sessions", "/sessions"],
      ["playground", "/playground"],
      ["usage", "/usage"],
      ["consent", consent],
    ];
    const anonymous = await browser.newContext({ baseURL: api.baseUrl });
    const signedOut = await anonymous.newPage();
    const found: string[] = [];
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await signedOut.setViewportSize(viewport);
      for (const [name, target] of pages) {
        const response = await page.goto(target);
        expect(response?.status(), name).toBe(200);
        for (const violation of await seriousAxeViolations(page))
          found.push(`${name}: ${violation}`);
        // Nothing makes a page scroll sideways, down to a phone's width.
        const overflow = (await page.evaluate(
          "document.documentElement.scrollWidth - document.documentElement.clientWidth",
        )) as number;
        if (overflow > 0)
          found.push(`${name}: ${overflow} px wider than the ${viewport.name} screen`);
        await saveScreenshot(page, `console/${viewport.name}/${name}`);
      }
      for (const [name, target] of [
        ["sign-in", "/sign-in"],
        ["landing-signed-out", "/"],
      ] as const) {
        await signedOut.goto(target);
        for (const violation of await seriousAxeViolations(signedOut)) {
          found.push(`${name}: ${violation}`);
        }
        await saveScreenshot(signedOut, `console/${viewport.name}/${name}`);
      }
    }
    await anonymous.close();
    expect(found).toEqual([]);
  });
});
