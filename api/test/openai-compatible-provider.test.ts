import { completionErrorBodySchema, generateResponseSchema } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Persona } from "../src/personas/persona.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { ESCAPING_SOURCE, expectSourceInDataBlock } from "./support/source-block.js";
import { startTestService, type TestService } from "./support/test-service.js";

let upstream: FakeUpstream;
let service: TestService;
let routed: Persona;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  service = await startTestService({
    PERSONA_OPENAI_BASE_URL: upstream.baseUrl,
    PERSONA_OPENAI_API_KEY: "upstream-secret",
    PERSONA_PROVIDER_TIMEOUT_MS: "500",
    PERSONA_PROVIDER_MAX_RETRIES: "0",
  });
  routed = await service.services.personas.create(service.accountId, {
    ...readExamplePersona(),
    personifyAccess: false,
    route: [{ upstream: "openai-compatible", model: "fake-model" }],
  });
});
afterAll(async () => {
  await service.stop();
  await upstream.close();
});

const generate = () =>
  service.post("/api/v1/generate", {
    personaId: routed.id,
    messages: [
      { role: "developer", content: "The app is a garden planner." },
      { role: "user", content: "What should I sow in March?" },
    ],
  });

describe("OpenAI-compatible provider against a fake upstream", () => {
  it("sends the persona prompt, the mapped history and the upstream key; normalizes the reply", async () => {
    upstream.behaviour = { kind: "reply", text: '  Assistant: "Sow  broad beans.  Then peas!"  ' };
    const response = await generate();
    expect(response.status).toBe(200);
    const body = generateResponseSchema.parse(await response.json());
    expect(body.result.finalReply).toBe("Sow broad beans. Then peas!");
    const sent = upstream.requests.at(-1);
    expect(sent?.model).toBe("fake-model");
    expect(sent?.messages[0]?.role).toBe("system");
    expect(sent?.messages[0]?.content).toMatch(/You are Juniper/u);
    expect(sent?.messages[1]).toEqual({
      role: "system",
      content: expect.stringMatching(/garden planner/u),
    });
    expect(sent?.messages.at(-1)).toEqual({ role: "user", content: "What should I sow in March?" });
    expect(upstream.authorizations.at(-1)).toBe("Bearer upstream-secret");
  });

  it("asks each candidate of /completions n for its own seed and temperature, so a deterministic upstream varies", async () => {
    upstream.behaviour = { kind: "deterministic" };
    const before = upstream.requests.length;
    const response = await service.post("/api/v1/completions", {
      model: routed.id,
      n: 3,
      messages: [{ role: "user", content: "What should I sow in March?" }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ text: string }> };
    const texts = body.choices.map((choice) => choice.text);
    expect(texts).toHaveLength(3);
    expect(new Set(texts).size).toBe(3);
    const sent = upstream.requests.slice(before);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((request) => request.seed)).size).toBe(3);
    expect(new Set(sent.map((request) => request.temperature)).size).toBe(3);
    for (const request of sent) expect(Number.isInteger(request.seed)).toBe(true);

    // A single candidate keeps the upstream's defaults.
    const single = await generate();
    expect(single.status).toBe(200);
    expect(upstream.requests.at(-1)).not.toHaveProperty("seed");
    expect(upstream.requests.at(-1)).not.toHaveProperty("temperature");
  });

  it("puts /personify source text in a delimited data block", async () => {
    upstream.behaviour = { kind: "reply", text: "Rewritten text." };
    const raw = ESCAPING_SOURCE;
    const response = await service.post("/api/v1/personify", { personaId: routed.id, raw });
    expect(response.status).toBe(403);
    await service.services.personas.setPersonifyAccess(routed.id, true);
    const allowed = await service.post("/api/v1/personify", { personaId: routed.id, raw });
    expect(allowed.status).toBe(200);
    expectSourceInDataBlock(upstream.requests.at(-1)?.messages.at(-1)?.content ?? "");
  });

  it("maps an upstream 500 to a JSON 502 on /generate and a server_error on /completions", async () => {
    upstream.behaviour = { kind: "status", status: 500 };
    const response = await generate();
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/u);
    expect(await response.json()).toEqual({
      error: { type: "upstream_error", message: expect.stringMatching(/500/u) },
    });
    const completion = await service.post("/api/v1/completions", {
      model: routed.id,
      prompt: "hi",
    });
    expect(completion.status).toBe(502);
    const error = completionErrorBodySchema.parse(await completion.json()).error;
    expect(error.type).toBe("server_error");
    expect(JSON.stringify(error)).not.toContain("upstream-secret");
  });

  it("maps an upstream that hangs to a 504 within the configured timeout", async () => {
    upstream.behaviour = { kind: "hang" };
    const started = Date.now();
    const response = await generate();
    expect(response.status).toBe(504);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe(
      "upstream_timeout",
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("maps an empty completion to a 502", async () => {
    upstream.behaviour = { kind: "reply", text: "   " };
    expect((await generate()).status).toBe(502);
  });
});
