import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import type { RunningExampleServer } from "../server/server.js";
import { buildFrontEnd, listFiles } from "./support/build-front-end.js";
import { postJson, serviceEnvironment, startExample } from "./support/example-fixture.js";

// Spec §5.5: keys never appear in client-side code. The front end is built
// while the key is in the environment (as when a developer builds in a shell
// that sourced .env), then every file of the bundle and every response the
// browser can get is searched for the key and for pieces of it.

let api: ApiFixture;
let webDirectory: string;
let example: RunningExampleServer;

/** The key and its pieces long enough to identify it (never printed). */
function secretPieces(): string[] {
  const key = api.apiKey;
  return [key, key.slice(4, 20), key.slice(-16)];
}

function holdsKey(text: string): boolean {
  return secretPieces().some((piece) => text.includes(piece));
}

beforeAll(async () => {
  api = await startApi();
  webDirectory = await buildFrontEnd(serviceEnvironment(api));
  example = await startExample(serviceEnvironment(api), webDirectory);
}, 120_000);
afterAll(async () => {
  await example?.stop();
  await api?.stop();
  if (webDirectory !== undefined) fs.rmSync(webDirectory, { recursive: true, force: true });
});

describe("the API key never reaches the browser", () => {
  it("the built bundle holds no piece of the key", () => {
    const files = listFiles(webDirectory);
    expect(files).toContain("index.html");
    expect(files.some((file) => file.endsWith(".js"))).toBe(true);
    for (const file of files) {
      const text = fs.readFileSync(path.join(webDirectory, file), "utf8");
      expect(holdsKey(text), file).toBe(false);
      // The production build, as shipped (React's development build has jsxDEV).
      if (file.endsWith(".js")) expect(text.includes("jsxDEV"), file).toBe(false);
    }
  });

  it("no page, asset or route response holds it", async () => {
    const responses: Array<[string, string]> = [];
    for (const page of ["/", "/chat", "/personify"]) {
      const response = await fetch(`${example.url}${page}`);
      expect(response.status, page).toBe(200);
      expect(response.headers.get("content-type"), page).toMatch(/^text\/html/u);
      const html = await response.text();
      expect(html, page).toContain('<div id="root">');
      responses.push([page, html]);
      // Every script and stylesheet the page loads.
      for (const match of html.matchAll(/(?:src|href)="(\/[^"]+)"/gu)) {
        const asset = await fetch(`${example.url}${match[1]}`);
        expect(asset.status, match[1]).toBe(200);
        responses.push([match[1] ?? "", await asset.text()]);
      }
    }
    for (const file of listFiles(webDirectory)) {
      const asset = await fetch(`${example.url}/${file}`);
      responses.push([file, await asset.text()]);
    }
    const routes: Array<[string, unknown]> = [
      ["/api/quickstart", { prompt: "Hello!" }],
      ["/api/chat", { messages: [{ role: "user", content: "Hello!" }] }],
      ["/api/personify", { raw: "We meet at noon." }],
      ["/api/quickstart", {}],
    ];
    for (const [route, body] of routes) {
      responses.push([route, (await postJson(`${example.url}${route}`, body)).text]);
    }
    expect(responses.length).toBeGreaterThan(8);
    for (const [name, text] of responses) expect(holdsKey(text), name).toBe(false);
  });

  it("the pages are served with a policy that keeps scripts and requests on this origin", async () => {
    const response = await fetch(`${example.url}/chat`);
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'self'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
