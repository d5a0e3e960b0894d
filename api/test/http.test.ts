import { completionErrorBodySchema } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ PERSONA_BODY_LIMIT_BYTES: "4096" });
});
afterAll(() => service.stop());

describe("HTTP behaviour common to the endpoints (docs/API.md §4 common rules, §7)", () => {
  const paths = ["/api/v1/generate", "/api/v1/personify", "/api/v1/completions"];

  it("answers 415 when Content-Type is not application/json", async () => {
    for (const path of paths) {
      const response = await fetch(service.url + path, {
        method: "POST",
        headers: { "content-type": "text/plain", "x-api-key": service.key },
        body: "{}",
      });
      expect(response.status).toBe(415);
      const text = await response.text();
      expect(text).toMatch(/application\/json/u);
    }
  });

  it("accepts application/json with a charset parameter", async () => {
    const response = await service.post(
      "/api/v1/generate",
      { personaId: service.persona.id, messages: [{ role: "user", content: "hi" }] },
      { headers: { "content-type": "application/json; charset=utf-8" } },
    );
    expect(response.status).toBe(200);
  });

  it("answers 413 for a body over the configured limit, in each endpoint's format", async () => {
    const huge = { personaId: service.persona.id, raw: "x".repeat(10_000) };
    const native = await service.post("/api/v1/personify", huge);
    expect(native.status).toBe(413);
    expect(native.headers.get("content-type")).toMatch(/^text\/plain/u);
    const completions = await service.post("/api/v1/completions", { prompt: "x".repeat(10_000) });
    expect(completions.status).toBe(413);
    expect(((await completions.json()) as { error: { type: string } }).error.type).toBe(
      "invalid_request_error",
    );
  });

  it("answers 405 with Allow: POST for other methods", async () => {
    const response = await fetch(`${service.url}/api/v1/generate`);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("answers unknown routes with a JSON 404 and every response with an x-request-id", async () => {
    const response = await fetch(`${service.url}/api/v1/nothing`, { method: "POST" });
    expect(response.status).toBe(404);
    expect(response.headers.get("x-request-id")).toMatch(/.+/u);
    const echoed = await fetch(`${service.url}/healthz`, {
      headers: { "x-request-id": "abc-123" },
    });
    expect(echoed.headers.get("x-request-id")).toBe("abc-123");
    expect(await echoed.json()).toEqual({ status: "ok" });
  });

  it("answers unknown paths under /api/v1 with the completions error object, others as before", async () => {
    for (const [method, path] of [
      ["POST", "/api/v1/chat/completions"],
      ["GET", "/api/v1/embeddings"],
      ["GET", "/api/v1"],
    ] as const) {
      const response = await fetch(`${service.url}${path}`, { method });
      expect(response.status, path).toBe(404);
      expect(completionErrorBodySchema.strict().parse(await response.json()).error).toEqual({
        message: expect.stringMatching(/^no route for .+; the endpoints are POST \/api\/v1\//u),
        type: "invalid_request_error",
        param: null,
        code: null,
      });
    }
    for (const path of ["/api/v2/completions", "/api/v1x", "/nothing"]) {
      const response = await fetch(`${service.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({
        error: { type: "route_not_found", message: `no route for GET ${path}` },
      });
    }
  });

  it("never answers 500 to odd bodies", async () => {
    const bodies = [
      "null",
      "[]",
      '"text"',
      "123",
      "true",
      '{"__proto__": {"admin": true}}',
      "\u0000",
    ];
    for (const path of paths) {
      for (const raw of bodies) {
        const response = await service.post(path, null, { raw });
        expect(response.status, `${path} ${JSON.stringify(raw)}`).toBeLessThan(500);
      }
    }
  });
});
