import { randomUUID } from "node:crypto";
import {
  completionErrorBodySchema,
  generateResponseSchema,
  jsonErrorBodySchema,
} from "@persona-reply/shared";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { describeEachDialect } from "./support/test-databases.js";
import { startTestService, type TestService } from "./support/test-service.js";

/** The offline engine's default price per request (billing-config.ts). */
const OFFLINE_PRICE = 100;

await describeEachDialect("billing and rate limits over HTTP", (database) => {
  let upstream: FakeUpstream;
  let service: TestService;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    service = await startTestService({
      PERSONA_DATABASE_URL: database.url,
      PERSONA_OPENAI_BASE_URL: upstream.baseUrl,
      PERSONA_PROVIDER_MAX_RETRIES: "0",
      PERSONA_MODEL_PRICES: JSON.stringify({
        "openai-compatible:*": {
          inputMicrosPerMillionTokens: 2_000_000,
          outputMicrosPerMillionTokens: 3_000_000,
          maxOutputTokens: 50,
        },
      }),
    });
  });
  afterAll(async () => {
    await service?.stop();
    await upstream?.close();
  });

  /** A fresh account with a balance, an offline persona and a key of its own. */
  async function customer(
    balanceMicros: number,
    limits?: { minute?: number; hour?: number; day?: number },
  ) {
    const { services } = service;
    const account = await services.accounts.create(`Customer ${randomUUID().slice(0, 8)}`);
    if (balanceMicros > 0) await services.billing.balances.topUp(account.id, balanceMicros);
    const persona = await services.personas.create(account.id, {
      ...readExamplePersona(),
      personifyAccess: true,
    });
    const { record, key } = await services.keys.create(account.id, "customer key");
    if (limits !== undefined) await services.billing.limits.setForKey(record.id, limits);
    const post = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
      service.post(pathname, body, { headers: { "x-api-key": key, ...headers } });
    const client = new OpenAI({ baseURL: `${service.url}/api/v1`, apiKey: key, maxRetries: 0 });
    return { accountId: account.id, persona, keyId: record.id, key, post, client };
  }
  const hello = (personaId: string) => ({
    personaId,
    messages: [{ role: "user", content: "Hello!" }],
  });
  const ledgerMatches = async (accountId: string) => {
    const { balances } = service.services.billing;
    const balance = await balances.balanceOf(accountId);
    expect(await balances.ledgerSum(accountId)).toBe(balance?.balanceMicros);
    expect(balance?.reservedMicros).toBe(0);
    return balance?.balanceMicros;
  };

  it("charges each served request its price, with a usage row and a ledger entry", async () => {
    const who = await customer(10_000);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const responses = [
      await who.post("/api/v1/generate", hello(who.persona.id), {
        "x-request-id": ids[0] ?? "",
      }),
      await who.post(
        "/api/v1/personify",
        { personaId: who.persona.id, raw: "See you at noon." },
        { "x-request-id": ids[1] ?? "" },
      ),
      await who.post(
        "/api/v1/completions",
        { model: who.persona.id, prompt: "Hi", n: 3 },
        { "x-request-id": ids[2] ?? "" },
      ),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await ledgerMatches(who.accountId)).toBe(10_000 - 3 * OFFLINE_PRICE);
    const rows = await service.services.usage.findByRequestIds(ids);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row).toMatchObject({
        accountId: who.accountId,
        apiKeyId: who.keyId,
        status: 200,
        costMicros: OFFLINE_PRICE,
        paymentMethod: "balance",
      });
    }
    expect(rows.map((row) => row.endpoint).sort()).toEqual([
      "completions",
      "generate",
      "personify",
    ]);
    const entries = await service.services.billing.balances.entries(who.accountId);
    expect(entries.filter((entry) => entry.kind === "charge")).toHaveLength(3);
  });

  it("prices provider-reported tokens, and charges nothing for a provider error or a 4xx", async () => {
    const who = await customer(10_000);
    const routed = await service.services.personas.create(who.accountId, {
      ...readExamplePersona(),
      route: [{ upstream: "openai-compatible", model: "fake-model" }],
    });
    upstream.behaviour = { kind: "reply", text: "Hello from upstream." };
    expect(
      (
        await who.post("/api/v1/generate", hello(routed.id), {
          "x-request-id": "provider-served",
        })
      ).status,
    ).toBe(200);
    // 12 input tokens × 2.00 per million + 5 output tokens × 3.00 per million, in micro-units.
    expect(await ledgerMatches(who.accountId)).toBe(10_000 - (24 + 15));
    // The usage row names the route target that answered (settled in the ledger's batch).
    const [served] = await service.services.usage.findByRequestIds(["provider-served"]);
    expect(served).toMatchObject({
      status: 200,
      costMicros: 39,
      upstream: "openai-compatible",
      model: "fake-model",
    });

    upstream.behaviour = { kind: "status", status: 500 };
    const failed = await who.post("/api/v1/generate", hello(routed.id), {
      "x-request-id": "provider-failure",
    });
    expect(failed.status).toBe(502);
    upstream.behaviour = { kind: "reply", text: "Hello from upstream." };
    expect(
      (await who.post("/api/v1/generate", { personaId: routed.id, messages: [] })).status,
    ).toBe(422);
    expect((await who.post("/api/v1/generate", hello(randomUUID()))).status).toBe(404);
    expect(await ledgerMatches(who.accountId)).toBe(10_000 - 39);
    const [row] = await service.services.usage.findByRequestIds(["provider-failure"]);
    expect(row).toMatchObject({ status: 502, costMicros: 0, upstream: null, model: null });
  });

  it("answers 429 insufficient balance: JSON on /generate and /personify, RateLimitError on /completions", async () => {
    const who = await customer(0);
    const generate = await who.post("/api/v1/generate", hello(who.persona.id));
    expect(generate.status).toBe(429);
    expect(generate.headers.get("content-type")).toMatch(/^application\/json/u);
    const body = jsonErrorBodySchema.parse(await generate.json());
    expect(body.error.type).toBe("insufficient_balance");
    expect(body.error.message).toMatch(/^insufficient balance/u);
    const personify = await who.post("/api/v1/personify", {
      personaId: who.persona.id,
      raw: "Hi.",
    });
    expect(personify.status).toBe(429);

    const raw = await who.post("/api/v1/completions", { model: who.persona.id, prompt: "Hi" });
    expect(completionErrorBodySchema.strict().parse(await raw.json()).error).toMatchObject({
      type: "insufficient_quota",
      code: null,
      param: null,
    });
    const error = await who.client.completions
      .create({ model: who.persona.id, prompt: "Hi" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const quotaError = error as InstanceType<typeof OpenAI.RateLimitError>;
    // Spec §7.3: `code` is null; the cause is in `type` and the message.
    expect(quotaError.code).toBeNull();
    expect(quotaError.type).toBe("insufficient_quota");
    expect(quotaError.message).toMatch(/^429 insufficient balance/u);
    expect(await ledgerMatches(who.accountId)).toBe(0);
  });

  it("serves exactly 7 of 20 concurrent requests when funded for 7, never going below zero", async () => {
    const who = await customer(7 * OFFLINE_PRICE, { minute: 1000, hour: 1000, day: 1000 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => who.post("/api/v1/generate", hello(who.persona.id))),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(7);
    expect(statuses.filter((status) => status === 429)).toHaveLength(13);
    expect(await ledgerMatches(who.accountId)).toBe(0);
  });

  it("answers 403 for a suspended or closed account on every endpoint, and serves it again once active", async () => {
    const who = await customer(10_000);
    const { accounts } = service.services;
    for (const status of ["suspended", "closed"] as const) {
      await accounts.setStatus(who.accountId, status);
      for (const [path, body] of [
        ["/api/v1/generate", hello(who.persona.id)],
        ["/api/v1/personify", { personaId: who.persona.id, raw: "Hi." }],
      ] as const) {
        const response = await who.post(path, body);
        expect(response.status).toBe(403);
        expect(await response.text()).toBe("API key not associated with an active billing account");
      }
      const error = await who.client.completions
        .create({ model: who.persona.id, prompt: "Hi" })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    }
    await accounts.setStatus(who.accountId, "active");
    expect((await who.post("/api/v1/generate", hello(who.persona.id))).status).toBe(200);
    expect(await ledgerMatches(who.accountId)).toBe(10_000 - OFFLINE_PRICE);
  });

  it("sends rateLimits on /generate and the RateLimit headers on all three endpoints", async () => {
    const who = await customer(10_000);
    const before = Math.floor(Date.now() / 1000);
    const response = await who.post("/api/v1/generate", hello(who.persona.id));
    const body = generateResponseSchema.strict().parse(await response.json());
    expect(
      body.rateLimits?.map(({ window, limit, remaining }) => ({ window, limit, remaining })),
    ).toEqual([
      { window: "minute", limit: 25, remaining: 24 },
      { window: "hour", limit: 100, remaining: 99 },
      { window: "day", limit: 500, remaining: 499 },
    ]);
    expect(body.rateLimits?.[0]?.reset).toBeGreaterThanOrEqual(before + 59);
    expect(response.headers.get("ratelimit-policy")).toBe(
      '"minute";q=25;w=60, "hour";q=100;w=3600, "day";q=500;w=86400',
    );
    expect(response.headers.get("ratelimit")).toMatch(
      /^"minute";r=24;t=(59|60), "hour";r=99;t=\d+, "day";r=499;t=\d+$/u,
    );
    const personify = await who.post("/api/v1/personify", {
      personaId: who.persona.id,
      raw: "Hi.",
    });
    expect(personify.headers.get("ratelimit")).toMatch(/^"minute";r=23;/u);
    const completion = await who.post("/api/v1/completions", {
      model: who.persona.id,
      prompt: "Hi",
    });
    expect(completion.headers.get("ratelimit")).toMatch(/^"minute";r=22;/u);
    expect(completion.headers.get("ratelimit-policy")).toContain('"day";q=500;w=86400');
  });

  for (const [window, seconds] of [
    ["minute", 60],
    ["hour", 3600],
    ["day", 86_400],
  ] as const) {
    it(`answers 429 with Retry-After when the ${window} window is full, consuming no other window`, async () => {
      const who = await customer(10_000, { minute: 1000, hour: 1000, day: 1000, [window]: 1 });
      expect((await who.post("/api/v1/generate", hello(who.persona.id))).status).toBe(200);
      const refused = await who.post("/api/v1/generate", hello(who.persona.id));
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(seconds - 5);
      expect(retryAfter).toBeLessThanOrEqual(seconds);
      const body = jsonErrorBodySchema.parse(await refused.json());
      expect(body.error).toMatchObject({ type: "rate_limited" });
      expect(body.error.message).toContain(`1 requests per ${window}`);
      // The refused request used none of the 1000-request windows.
      expect(refused.headers.get("ratelimit")).toMatch(new RegExp(`"${window}";r=0;`, "u"));
      for (const other of ["minute", "hour", "day"].filter((name) => name !== window)) {
        expect(refused.headers.get("ratelimit")).toContain(`"${other}";r=999;`);
      }
      const error = await who.client.completions
        .create({ model: who.persona.id, prompt: "Hi" })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      const rateLimitError = error as InstanceType<typeof OpenAI.RateLimitError>;
      expect(rateLimitError.code).toBeNull();
      expect(rateLimitError.type).toBe("rate_limit_error");
      // The cause is in `type` and the message, which the SDK shows as it is.
      expect(rateLimitError.message).toMatch(/^429 rate limit/u);
      expect(rateLimitError.message).toContain(`1 requests per ${window}`);
      expect(Number(rateLimitError.headers?.get("retry-after"))).toBeGreaterThan(seconds - 5);
      expect(await ledgerMatches(who.accountId)).toBe(10_000 - OFFLINE_PRICE);
    });
  }
});
