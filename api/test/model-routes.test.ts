import { randomUUID } from "node:crypto";
import {
  completionErrorBodySchema,
  generateResponseSchema,
  jsonErrorBodySchema,
} from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteTarget } from "../src/personas/model-route.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { startTestService, type TestService } from "./support/test-service.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

/** The deadline of one attempt on each upstream of this suite. */
const TIMEOUT_MS = 400;
/**
 * Room above a deadline for "answered within the timeout": a request's own
 * work plus a loaded CI machine. It proves the route moved on at the
 * deadline instead of waiting on the hung target; it measures nothing.
 */
const MARGIN_MS = 1_000;
/** Consecutive failures that start a cooldown of the `flaky` target, and its length. */
const COOLDOWN_AFTER = 2;
const COOLDOWN_MS = 1_500;
const STARTING_BALANCE = 50_000_000;

let first: FakeUpstream;
let second: FakeUpstream;
let service: TestService;
let upstreamsFile: ReturnType<typeof writeUpstreamsFile>;

beforeAll(async () => {
  first = await startFakeUpstream();
  second = await startFakeUpstream();
  const connection = (upstream: FakeUpstream, keyVariable: string) => ({
    kind: "openai-compatible",
    baseUrl: upstream.baseUrl,
    apiKeyEnv: keyVariable,
    timeoutMs: TIMEOUT_MS,
    maxRetries: 0,
  });
  upstreamsFile = writeUpstreamsFile({
    // Cooldowns stay out of the way of the fallback tests.
    first: {
      ...connection(first, "FIRST_UPSTREAM_KEY"),
      cooldownAfterFailures: 1000,
      price: { inputMicrosPerMillionTokens: 1_000_000, outputMicrosPerMillionTokens: 1_000_000 },
    },
    second: {
      ...connection(second, "SECOND_UPSTREAM_KEY"),
      cooldownAfterFailures: 1000,
      price: { inputMicrosPerMillionTokens: 2_000_000, outputMicrosPerMillionTokens: 10_000_000 },
    },
    // The same two servers under other names, with a short cooldown.
    flaky: {
      ...connection(first, "FIRST_UPSTREAM_KEY"),
      cooldownAfterFailures: COOLDOWN_AFTER,
      cooldownMs: COOLDOWN_MS,
      price: { requestMicros: 10 },
    },
    steady: { ...connection(second, "SECOND_UPSTREAM_KEY"), price: { requestMicros: 20 } },
  });
  service = await startTestService({
    PERSONA_UPSTREAMS_FILE: upstreamsFile.file,
    FIRST_UPSTREAM_KEY: "first-upstream-secret",
    SECOND_UPSTREAM_KEY: "second-upstream-secret",
  });
});
afterAll(async () => {
  await service?.stop();
  await first?.close();
  await second?.close();
  upstreamsFile?.remove();
});

/** A fresh account with a balance, a key and a persona on the given route. */
async function customer(route: RouteTarget[]) {
  const { services } = service;
  const account = await services.accounts.create(`Route customer ${randomUUID().slice(0, 8)}`);
  await services.billing.balances.topUp(account.id, STARTING_BALANCE);
  const persona = await services.personas.create(account.id, {
    ...readExamplePersona(),
    personifyAccess: true,
    route,
  });
  const { key } = await services.keys.create(account.id, "route key");
  const post = (path: string, body: unknown) =>
    service.post(path, body, { headers: { "x-api-key": key } });
  const generate = () =>
    post("/api/v1/generate", {
      personaId: persona.id,
      messages: [{ role: "user", content: "What should I sow in March?" }],
    });
  return { accountId: account.id, persona, post, generate };
}

const FIRST_THEN_SECOND: RouteTarget[] = [
  { upstream: "first", model: "model-a" },
  { upstream: "second", model: "model-b" },
];

async function metricsText(): Promise<string> {
  return (await fetch(`${service.url}/metrics`)).text();
}

/** The value of one sample of the Prometheus text, or 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.split(" ").at(-1));
  }
  return 0;
}

describe("a route of two upstreams", () => {
  it("the first hangs past its timeout: the second answers within the timeout and a small margin", async () => {
    const { accountId, generate } = await customer(FIRST_THEN_SECOND);
    first.behaviour = { kind: "hang" };
    second.behaviour = { kind: "reply", text: "Broad beans, from the second." };
    const firstBefore = first.requests.length;
    const started = Date.now();
    const response = await generate();
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    const body = generateResponseSchema.parse(await response.json());
    expect(body.result.finalReply).toBe("Broad beans, from the second.");
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    // Each target got its own model, and its own key.
    expect(first.requests.length - firstBefore).toBe(1);
    expect(first.requests.at(-1)?.model).toBe("model-a");
    expect(first.authorizations.at(-1)).toBe("Bearer first-upstream-secret");
    expect(second.requests.at(-1)?.model).toBe("model-b");
    expect(second.authorizations.at(-1)).toBe("Bearer second-upstream-secret");
    // The usage row names the target that answered.
    const [row] = await service.services.usage.findByRequestIds([
      response.headers.get("x-request-id") ?? "",
    ]);
    expect(row).toMatchObject({ status: 200, upstream: "second", model: "model-b" });
    expect(await service.services.billing.balances.openReservations(accountId)).toBe(0);
  });

  it("the first answers 500, 503, 429 or resets: the second answers", async () => {
    const { generate } = await customer(FIRST_THEN_SECOND);
    second.behaviour = { kind: "reply", text: "From the second." };
    for (const behaviour of [
      { kind: "status", status: 500 },
      { kind: "status", status: 503 },
      { kind: "status", status: 429, headers: { "Retry-After": "1" } },
      { kind: "reset" },
    ] as const) {
      first.behaviour = behaviour;
      const firstBefore = first.requests.length;
      const response = await generate();
      expect(response.status, JSON.stringify(behaviour)).toBe(200);
      expect(generateResponseSchema.parse(await response.json()).result.finalReply).toBe(
        "From the second.",
      );
      expect(first.requests.length - firstBefore).toBe(1);
    }
  });

  it("the first answers an empty completion: the second answers", async () => {
    const { generate } = await customer(FIRST_THEN_SECOND);
    first.behaviour = { kind: "empty", shape: "blank-text" };
    second.behaviour = { kind: "reply", text: "Not empty." };
    const response = await generate();
    expect(response.status).toBe(200);
    expect(generateResponseSchema.parse(await response.json()).result.finalReply).toBe(
      "Not empty.",
    );
  });

  it("the first refuses the request itself (400): no other target is tried, 502", async () => {
    const { generate } = await customer(FIRST_THEN_SECOND);
    first.behaviour = { kind: "status", status: 400 };
    second.behaviour = { kind: "reply", text: "Never asked." };
    const secondBefore = second.requests.length;
    const response = await generate();
    expect(response.status).toBe(502);
    expect(jsonErrorBodySchema.parse(await response.json()).error).toEqual({
      type: "upstream_error",
      message: "the model provider failed: upstream answered 400",
    });
    expect(second.requests.length).toBe(secondBefore);
  });

  it("charges the answering target's price, and reserves what the dearest target could cost", async () => {
    const { accountId, generate } = await customer(FIRST_THEN_SECOND);
    const { balances } = service.services.billing;
    // The fake upstreams report 12 input and 5 output tokens.
    first.behaviour = { kind: "reply", text: "From the first." };
    await generate();
    // first: 12 × 1 + 5 × 1 micro-units.
    expect((await balances.balanceOf(accountId))?.balanceMicros).toBe(STARTING_BALANCE - 17);
    first.behaviour = { kind: "status", status: 500 };
    second.behaviour = { kind: "reply", text: "From the second." };
    const response = await generate();
    expect(response.status).toBe(200);
    // second: 12 × 2 + 5 × 10 micro-units.
    expect((await balances.balanceOf(accountId))?.balanceMicros).toBe(STARTING_BALANCE - 17 - 74);
    expect(await balances.ledgerSum(accountId)).toBe(STARTING_BALANCE - 17 - 74);
    const charges = (await balances.entries(accountId)).filter((entry) => entry.kind === "charge");
    expect(charges.map((entry) => entry.amountMicros)).toEqual([-17, -74]);
  });

  it("both fail: the endpoint's provider error (502, or 504 when both timed out), nothing charged, no reservation left", async () => {
    const { accountId, persona, post } = await customer(FIRST_THEN_SECOND);
    const requestIds: string[] = [];
    const endpoints = [
      ["/api/v1/generate", { personaId: persona.id, messages: [{ role: "user", content: "Hi" }] }],
      ["/api/v1/personify", { personaId: persona.id, raw: "The meeting moves to Thursday." }],
      ["/api/v1/completions", { model: persona.id, prompt: "Hi", n: 2 }],
    ] as const;
    const cases = [
      {
        first: { kind: "status", status: 500 },
        second: { kind: "status", status: 503 },
        status: 502,
        message: /^the model provider failed: upstream answered 503 \(2 targets tried\)$/u,
      },
      {
        first: { kind: "hang" },
        second: { kind: "status", status: 500 },
        status: 502,
        message: /^the model provider failed: upstream answered 500 \(2 targets tried\)$/u,
      },
      {
        first: { kind: "hang" },
        second: { kind: "hang" },
        status: 504,
        message: new RegExp(
          `^the model provider did not answer within ${TIMEOUT_MS} ms, then ${TIMEOUT_MS} ms \\(2 targets tried\\)$`,
          "u",
        ),
      },
    ] as const;
    for (const outcome of cases) {
      first.behaviour = outcome.first;
      second.behaviour = outcome.second;
      for (const [path, body] of endpoints) {
        const started = Date.now();
        const response = await post(path, body);
        const elapsed = Date.now() - started;
        const text = await response.text();
        expect(response.status, `${path}: ${text}`).toBe(outcome.status);
        expect(response.headers.get("content-type")).toMatch(/^application\/json/u);
        expect(elapsed).toBeLessThan(2 * TIMEOUT_MS + MARGIN_MS);
        expect(text).not.toMatch(/upstream-secret/u);
        requestIds.push(response.headers.get("x-request-id") ?? "");
        if (path === "/api/v1/completions") {
          const { error } = completionErrorBodySchema.parse(JSON.parse(text));
          expect(error).toMatchObject({ type: "server_error", param: null, code: null });
          expect(error.message).toMatch(outcome.message);
        } else {
          const { error } = jsonErrorBodySchema.parse(JSON.parse(text));
          expect(error.type).toBe(outcome.status === 504 ? "upstream_timeout" : "upstream_error");
          expect(error.message).toMatch(outcome.message);
        }
      }
    }
    const { balances } = service.services.billing;
    const { usage } = service.services;
    expect(await balances.balanceOf(accountId)).toMatchObject({
      balanceMicros: STARTING_BALANCE,
      reservedMicros: 0,
    });
    expect(await balances.openReservations(accountId)).toBe(0);
    expect((await balances.entries(accountId)).filter((entry) => entry.kind === "charge")).toEqual(
      [],
    );
    const rows = await usage.findByRequestIds(requestIds);
    expect(rows).toHaveLength(requestIds.length);
    for (const row of rows) {
      expect(row.costMicros).toBe(0);
      expect(row.upstream).toBeNull();
    }
  });
});

describe("cooldown of a failing target", () => {
  it(`after ${COOLDOWN_AFTER} consecutive failures the target is skipped without waiting; after the cooldown it is tried again`, async () => {
    const { accountId, generate } = await customer([
      { upstream: "flaky", model: "model-f" },
      { upstream: "steady", model: "model-s" },
    ]);
    const before = await metricsText();
    first.behaviour = { kind: "hang" };
    second.behaviour = { kind: "reply", text: "Steady as ever." };
    for (let failure = 0; failure < COOLDOWN_AFTER; failure++) {
      const started = Date.now();
      expect((await generate()).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    }
    // In cooldown: the route goes straight to the next target.
    const flakyBefore = first.requests.length;
    const started = Date.now();
    const skipped = await generate();
    const elapsed = Date.now() - started;
    expect(skipped.status).toBe(200);
    expect(generateResponseSchema.parse(await skipped.json()).result.finalReply).toBe(
      "Steady as ever.",
    );
    expect(first.requests.length).toBe(flakyBefore);
    expect(elapsed).toBeLessThan(TIMEOUT_MS);

    const during = await metricsText();
    const delta = (name: string, labels: Record<string, string>) =>
      sample(during, name, labels) - sample(before, name, labels);
    expect(
      delta("persona_upstream_attempts_total", { upstream: "flaky", outcome: "timeout" }),
    ).toBe(COOLDOWN_AFTER);
    expect(delta("persona_upstream_attempts_total", { upstream: "steady", outcome: "ok" })).toBe(
      COOLDOWN_AFTER + 1,
    );
    expect(delta("persona_upstream_cooldowns_total", { upstream: "flaky" })).toBe(1);
    expect(
      delta("persona_upstream_fallbacks_total", { upstream: "flaky", reason: "failure" }),
    ).toBe(COOLDOWN_AFTER);
    expect(
      delta("persona_upstream_fallbacks_total", { upstream: "flaky", reason: "cooldown" }),
    ).toBe(1);

    // After the cooldown the target is tried again, and answers.
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 100));
    first.behaviour = { kind: "reply", text: "Flaky is back." };
    const again = await generate();
    expect(again.status).toBe(200);
    expect(generateResponseSchema.parse(await again.json()).result.finalReply).toBe(
      "Flaky is back.",
    );
    expect(first.requests.length).toBe(flakyBefore + 1);
    expect(first.requests.at(-1)?.model).toBe("model-f");
    // Each answer was charged at its target's flat price: steady 20, flaky 10.
    const charges = (await service.services.billing.balances.entries(accountId))
      .filter((entry) => entry.kind === "charge")
      .map((entry) => entry.amountMicros);
    expect(charges).toEqual([-20, -20, -20, -10]);
  });

  it("a route whose every target is cooling down still tries its first target", async () => {
    const { generate } = await customer([{ upstream: "flaky", model: "model-only" }]);
    first.behaviour = { kind: "status", status: 500 };
    for (let failure = 0; failure < COOLDOWN_AFTER + 2; failure++) {
      const before = first.requests.length;
      expect((await generate()).status).toBe(502);
      expect(first.requests.length).toBe(before + 1);
    }
    first.behaviour = { kind: "reply", text: "Alone but working." };
    expect((await generate()).status).toBe(200);
  });
});
