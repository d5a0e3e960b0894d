import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usagePageBody } from "../src/usage/usage-page.js";
import { readUsageSummary } from "../src/usage/usage-summary.js";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.stop();
});

const REQUESTS = {
  "/api/v1/generate": (personaId: string) => ({
    personaId,
    messages: [{ role: "user", content: "Hello there!" }],
  }),
  "/api/v1/personify": (personaId: string) => ({ personaId, raw: "The shop opens at nine." }),
  "/api/v1/completions": (personaId: string) => ({ model: personaId, prompt: "Hello there!" }),
} as const;

describe("Persona-Version", () => {
  it("names the live version on every metered endpoint, and each usage row records it", async () => {
    const id = service.persona.id;
    for (const [pathname, body] of Object.entries(REQUESTS)) {
      const response = await service.post(pathname, body(id));
      expect(response.status, pathname).toBe(200);
      expect(response.headers.get("persona-version"), pathname).toBe("1");
      await response.arrayBuffer();
    }
    await service.services.personas.revise(id, { name: "Juniper Two" }, { note: "renamed" });
    // A draft serves nothing: the answer still comes from version 2.
    await service.services.personas.revise(id, { name: "Juniper Three" }, { draft: true });
    const renamed = await service.post("/api/v1/generate", REQUESTS["/api/v1/generate"](id));
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get("persona-version")).toBe("2");
    // The body is exactly the spec's: no version in it.
    expect(JSON.stringify(await renamed.json())).not.toMatch(/version/iu);

    const rows = (await service.services.usage.list(service.accountId)).filter(
      (row) => row.personaId === id,
    );
    expect(rows.map((row) => [row.endpoint, row.personaVersion])).toEqual([
      ["generate", 1],
      ["personify", 1],
      ["completions", 1],
      ["generate", 2],
    ]);
    const byVersion = await service.services.usage.report({
      personaId: id,
      byVersion: true,
    });
    expect(byVersion.map((line) => [line.personaVersion, line.requests])).toEqual([
      [1, 3],
      [2, 1],
    ]);
  });

  it("shows the customer each persona's live version, since when and its release note, and usage by version", async () => {
    const { personas } = service.services;
    const id = service.plainPersona.id;
    await personas.revise(
      id,
      { name: "Plain <two>" },
      { note: "internal: cheaper target", releaseNote: "warmer & shorter" },
    );
    const response = await service.post("/api/v1/generate", REQUESTS["/api/v1/generate"](id));
    expect(response.headers.get("persona-version")).toBe("2");
    await response.arrayBuffer();
    const now = Date.now();
    const summary = await readUsageSummary(service.services.database, service.accountId, now);
    if (summary === undefined) throw new Error("no summary");
    const live = (await personas.listWithLiveVersion(service.accountId)).map(
      ({ persona, live: version }) => ({
        id: persona.id,
        name: persona.name,
        version: version.version,
        since: version.promotedAt ?? version.createdAt,
        releaseNote: version.releaseNote,
      }),
    );
    const plain = usagePageBody(summary, [], now, live).value;
    expect(plain).toMatch(
      /Plain &lt;two&gt;<br><code>[^<]+<\/code><\/span><\/td>\s*<td class="number" data-label="Live version">2<\/td>/u,
    );
    expect(plain).toContain("warmer &amp; shorter");
    expect(plain).not.toContain("cheaper target");
    expect(plain).toContain('href="/usage?by=version#by-version"');
    const split = usagePageBody(summary, [], now, live, [
      { personaId: id, version: 2, requests: 1, served: 1, costMicros: 100 },
    ]).value;
    expect(split).toContain('id="version-table"');
  });
});
