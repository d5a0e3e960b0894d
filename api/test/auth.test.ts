import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../../test-support/raw-request.js";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const body = () => ({ personaId: service.persona.id, messages: [{ role: "user", content: "hi" }] });

describe("authentication (docs/API.md §5.1–5.2, §7 row 401)", () => {
  it("accepts the key in x-api-key or as Authorization: Bearer", async () => {
    const viaHeader = await service.post("/api/v1/generate", body());
    expect(viaHeader.status).toBe(200);
    const viaBearer = await service.post("/api/v1/generate", body(), {
      headers: { "x-api-key": "", authorization: `Bearer ${service.key}` },
    });
    expect(viaBearer.status).toBe(200);
  });

  it("tells a mistyped key (checksum) from an unknown one, and neither echoes the key", async () => {
    const last = service.key.at(-1) === "a" ? "b" : "a";
    const typo = `${service.key.slice(0, -1)}${last}`;
    const mistyped = await service.post("/api/v1/generate", body(), {
      headers: { "x-api-key": typo },
    });
    expect(mistyped.status).toBe(401);
    const text = await mistyped.text();
    expect(text).toMatch(/checksum/u);
    expect(text).not.toContain(typo);
  });

  it("rejects a non-Bearer Authorization header and two different keys", async () => {
    const basic = await service.post("/api/v1/generate", body(), {
      headers: { "x-api-key": "", authorization: "Basic dXNlcjpwYXNz" },
    });
    expect(basic.status).toBe(401);
    const { key: other } = await service.services.keys.create(service.accountId, "second");
    const conflicting = await service.post("/api/v1/generate", body(), {
      headers: { authorization: `Bearer ${other}` },
    });
    expect(conflicting.status).toBe(401);
    expect(await conflicting.text()).toMatch(/different keys/u);
  });

  it("answers 401 to two Authorization or two x-api-key headers with different keys, in each endpoint's format", async () => {
    const { key: other } = await service.services.keys.create(service.accountId, "another");
    const send = (path: string, headers: Record<string, string | string[]>, payload: unknown) =>
      rawRequest(service.url, path, { method: "POST", headers, body: payload });
    const completion = { model: service.persona.id, prompt: "hi" };
    for (const headers of [
      { authorization: [`Bearer ${service.key}`, `Bearer ${other}`] },
      { authorization: [`Bearer ${other}`, `Bearer ${service.key}`] },
      { "x-api-key": [service.key, other] },
    ]) {
      const context = Object.keys(headers).join();
      const native = await send("/api/v1/generate", headers, body());
      expect(native.status, context).toBe(401);
      expect(native.type, context).toMatch(/^text\/plain/u);
      expect(native.text, context).toMatch(/different keys/u);
      expect(native.text, context).not.toContain(other);
      const completions = await send("/api/v1/completions", headers, completion);
      expect(completions.status, context).toBe(401);
      expect(JSON.parse(completions.text)).toMatchObject({
        error: { type: "authentication_error", code: null },
      });
    }
    // The same key twice is not ambiguous.
    const twice = await send(
      "/api/v1/generate",
      { "x-api-key": [service.key, service.key] },
      body(),
    );
    expect(twice.status, twice.text).toBe(200);
  });

  it("answers 401 for a revoked key", async () => {
    const { record, key } = await service.services.keys.create(service.accountId, "to revoke");
    const before = await service.post("/api/v1/generate", body(), {
      headers: { "x-api-key": key },
    });
    expect(before.status).toBe(200);
    await service.services.keys.revoke(record.id);
    const after = await service.post("/api/v1/generate", body(), { headers: { "x-api-key": key } });
    expect(after.status).toBe(401);
    expect(await after.text()).toMatch(/revoked/u);
  });

  it("answers 404 for another account's persona, like an unknown one", async () => {
    const stranger = await service.services.accounts.create("Stranger");
    const { key } = await service.services.keys.create(stranger.id, "stranger key");
    const response = await service.post("/api/v1/generate", body(), {
      headers: { "x-api-key": key },
    });
    expect(response.status).toBe(404);
    expect(await response.text()).toMatch(/unknown personaId/u);
  });

  it("answers 403 when the key's account is not active", async () => {
    const account = await service.services.accounts.create("Suspended");
    const persona = await service.services.personas.create(account.id, {
      ...service.persona,
      route: service.persona.route,
    });
    const { key } = await service.services.keys.create(account.id, "suspended key");
    await service.services.database
      .updateTable("accounts")
      .set({ status: "suspended" })
      .where("id", "=", account.id)
      .execute();
    const response = await service.post(
      "/api/v1/generate",
      { personaId: persona.id, messages: [{ role: "user", content: "hi" }] },
      { headers: { "x-api-key": key } },
    );
    expect(response.status).toBe(403);
    expect(await response.text()).toBe("API key not associated with an active billing account");
  });
});
