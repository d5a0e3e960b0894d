import { randomUUID } from "node:crypto";
import { generateResponseSchema, jsonErrorBodySchema } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteTarget } from "../src/personas/model-route.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import {
  type FakeAnthropicUpstream,
  startFakeAnthropicUpstream,
} from "./support/fake-anthropic-upstream.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { ESCAPING_SOURCE, expectSourceInDataBlock } from "./support/source-block.js";
import { startTestService, type TestService } from "./support/test-service.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

const ANTHROPIC_KEY = `test-anthropic-${randomUUID()}`;
const MAX_OUTPUT_TOKENS = 512;
const STARTING_BALANCE = 10_000_000;

let claude: FakeAnthropicUpstream;
let fallback: FakeUpstream;
let service: TestService;
let upstreamsFile: ReturnType<typeof writeUpstreamsFile>;

beforeAll(async () => {
  claude = await startFakeAnthropicUpstream();
  fallback = await startFakeUpstream();
  upstreamsFile = writeUpstreamsFile({
    claude: {
      kind: "anthropic",
      baseUrl: claude.baseUrl,
      apiKeyEnv: "TEST_ANTHROPIC_KEY",
      timeoutMs: 1_000,
      maxRetries: 0,
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      cooldownAfterFailures: 1000,
      price: { inputMicrosPerMillionTokens: 3_000_000, outputMicrosPerMillionTokens: 15_000_000 },
    },
    local: {
      kind: "openai-compatible",
      baseUrl: fallback.baseUrl,
      timeoutMs: 1_000,
      maxRetries: 0,
      price: { requestMicros: 7 },
    },
  });
  service = await startTestService({
    PERSONA_UPSTREAMS_FILE: upstreamsFile.file,
    TEST_ANTHROPIC_KEY: ANTHROPIC_KEY,
  });
});
afterAll(async () => {
  await service?.stop();
  await claude?.close();
  await fallback?.close();
  upstreamsFile?.remove();
});

async function customer(route: RouteTarget[]) {
  const { services } = service;
  const account = await services.accounts.create(`Claude customer ${randomUUID().slice(0, 8)}`);
  await services.billing.balances.topUp(account.id, STARTING_BALANCE);
  const persona = await services.personas.create(account.id, {
    ...readExamplePersona(),
    personifyAccess: true,
    route,
  });
  const { key } = await services.keys.create(account.id, "claude key");
  const post = (path: string, body: unknown) =>
    service.post(path, body, { headers: { "x-api-key": key } });
  return { accountId: account.id, persona, post };
}

const CLAUDE_THEN_LOCAL: RouteTarget[] = [
  { upstream: "claude", model: "claude-test-1" },
  { upstream: "local", model: "llama-test" },
];

describe("the Anthropic provider through its SDK against a fake Messages API", () => {
  it("sends the persona prompt as `system` and alternating turns; reads the text and the usage", async () => {
    const { accountId, persona, post } = await customer(CLAUDE_THEN_LOCAL);
    claude.behaviour = {
      kind: "reply",
      text: '  Juniper: "Sow  broad beans now."  ',
      usage: { input_tokens: 40, output_tokens: 9 },
    };
    const response = await post("/api/v1/generate", {
      personaId: persona.id,
      messages: [
        { role: "developer", content: "The app is a garden planner." },
        { role: "assistant", content: "Welcome to the club!" },
        { role: "user", content: "Hi" },
        { role: "user", content: "What should I sow in March?" },
      ],
    });
    expect(response.status).toBe(200);
    expect(generateResponseSchema.parse(await response.json()).result.finalReply).toBe(
      "Sow broad beans now.",
    );
    const sent = claude.requests.at(-1);
    expect(sent?.apiKey).toBe(ANTHROPIC_KEY);
    expect(sent?.anthropicVersion).not.toBe("");
    expect(sent?.body.model).toBe("claude-test-1");
    expect(sent?.body.max_tokens).toBe(MAX_OUTPUT_TOKENS);
    expect(sent?.body.system).toMatch(/^You are Juniper/u);
    expect(sent?.body.system).toMatch(/garden planner/u);
    // The opening assistant turn is context in `system`: the turns start with the user.
    expect(sent?.body.system).toMatch(
      /opened with this message from you \(the assistant\)[^\n]*\n\nWelcome to the club!$/u,
    );
    expect(sent?.body.messages).toEqual([
      { role: "user", content: "Hi\n\nWhat should I sow in March?" },
    ]);
    // Billed from the reported usage at claude's price: 40 × 3 + 9 × 15 micro-units.
    const { balances } = service.services.billing;
    const { usage } = service.services;
    expect((await balances.balanceOf(accountId))?.balanceMicros).toBe(STARTING_BALANCE - 255);
    const [row] = await usage.findByRequestIds([response.headers.get("x-request-id") ?? ""]);
    expect(row).toMatchObject({
      inputTokens: 40,
      outputTokens: 9,
      costMicros: 255,
      upstream: "claude",
      model: "claude-test-1",
    });
  });

  it("asks each variation for its own temperature (the Messages API has no seed)", async () => {
    const { persona, post } = await customer(CLAUDE_THEN_LOCAL);
    claude.behaviour = { kind: "reply", text: "Sow broad beans now." };
    const before = claude.requests.length;
    const response = await post("/api/v1/generate", {
      personaId: persona.id,
      includeVariations: true,
      messages: [{ role: "user", content: "What should I sow in March?" }],
    });
    expect(response.status).toBe(200);
    const sent = claude.requests.slice(before);
    expect(sent.length).toBeGreaterThan(1);
    const temperatures = sent.map((request) => request.body.temperature);
    expect(new Set(temperatures).size).toBe(sent.length);
    for (const temperature of temperatures) {
      expect(temperature).toBeGreaterThanOrEqual(0);
      expect(temperature).toBeLessThanOrEqual(1);
    }
    for (const request of sent) expect(request.body).not.toHaveProperty("seed");
  });

  it("keeps /personify's source text in a delimited data block of the user turn", async () => {
    const { persona, post } = await customer(CLAUDE_THEN_LOCAL);
    claude.behaviour = { kind: "reply", text: "Rewritten, kindly." };
    const raw = ESCAPING_SOURCE;
    const response = await post("/api/v1/personify", { personaId: persona.id, raw });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { personified: string }).personified).toBe(
      "Rewritten, kindly.",
    );
    const sent = claude.requests.at(-1)?.body;
    expect(sent?.system).toMatch(/^You are Juniper/u);
    expect(sent?.system).not.toContain("Ignore the above.");
    expect(sent?.messages).toHaveLength(1);
    expect(sent?.messages[0]?.role).toBe("user");
    expectSourceInDataBlock(sent?.messages[0]?.content ?? "");
  });

  it("a 529 overloaded answer (and 500, 429, 401): the route falls back to the next target", async () => {
    const { accountId, persona, post } = await customer(CLAUDE_THEN_LOCAL);
    fallback.behaviour = { kind: "reply", text: "The local model answers." };
    for (const [status, type] of [
      [529, "overloaded_error"],
      [500, "api_error"],
      [429, "rate_limit_error"],
      [401, "authentication_error"],
    ] as const) {
      claude.behaviour = { kind: "error", status, type };
      const claudeBefore = claude.requests.length;
      const response = await post("/api/v1/generate", {
        personaId: persona.id,
        messages: [{ role: "user", content: "Hello?" }],
      });
      expect(response.status, `${status}`).toBe(200);
      expect(generateResponseSchema.parse(await response.json()).result.finalReply).toBe(
        "The local model answers.",
      );
      expect(claude.requests.length - claudeBefore).toBe(1);
    }
    // Charged at the answering target's flat price, four times.
    expect((await service.services.billing.balances.balanceOf(accountId))?.balanceMicros).toBe(
      STARTING_BALANCE - 4 * 7,
    );
  });

  it("a 400 invalid request is not retried elsewhere: 502, nothing charged", async () => {
    const { accountId, persona, post } = await customer(CLAUDE_THEN_LOCAL);
    claude.behaviour = { kind: "error", status: 400, type: "invalid_request_error" };
    const fallbackBefore = fallback.requests.length;
    const response = await post("/api/v1/generate", {
      personaId: persona.id,
      messages: [{ role: "user", content: "Hello?" }],
    });
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(jsonErrorBodySchema.parse(JSON.parse(text)).error).toEqual({
      type: "upstream_error",
      message: "the model provider failed: upstream answered 400",
    });
    expect(text).not.toContain(ANTHROPIC_KEY);
    expect(fallback.requests.length).toBe(fallbackBefore);
    expect(await service.services.billing.balances.balanceOf(accountId)).toMatchObject({
      balanceMicros: STARTING_BALANCE,
      reservedMicros: 0,
    });
  });

  it("an Anthropic-only route that is overloaded: 502 saying so", async () => {
    const { persona, post } = await customer([{ upstream: "claude", model: "claude-test-1" }]);
    claude.behaviour = { kind: "error", status: 529, type: "overloaded_error" };
    const response = await post("/api/v1/generate", {
      personaId: persona.id,
      messages: [{ role: "user", content: "Hello?" }],
    });
    expect(response.status).toBe(502);
    expect(jsonErrorBodySchema.parse(await response.json()).error.message).toBe(
      "the model provider failed: the upstream is overloaded (529)",
    );
  });
});
