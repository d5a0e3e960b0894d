import { describe, expect, it } from "vitest";
import { loadUpstreams } from "../providers/load-upstreams.js";
import type { Upstream, UpstreamPrice } from "../providers/upstream-config.js";
import { priceTableSchema } from "./billing-config.js";
import { PriceList } from "./price-list.js";

const offline = { upstream: "offline", model: "rules" } as const;
const hosted = { upstream: "openai-compatible", model: "small" } as const;

/** The upstreams of the variables alone (no upstream file), as the service builds them. */
function variableUpstreams(prices?: string) {
  return loadUpstreams({
    PERSONA_OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    PERSONA_PROVIDER_TIMEOUT_MS: 1000,
    PERSONA_PROVIDER_MAX_RETRIES: 0,
    ...(prices === undefined
      ? {}
      : { PERSONA_MODEL_PRICES: priceTableSchema.parse(JSON.parse(prices)) }),
  });
}

function upstream(name: string, price: Partial<UpstreamPrice>, maxOutputTokens = 100): Upstream {
  return {
    name,
    kind: "openai-compatible",
    baseUrl: "http://127.0.0.1:9/v1",
    timeoutMs: 1000,
    maxRetries: 0,
    maxOutputTokens,
    cooldownAfterFailures: 3,
    cooldownMs: 1000,
    price: {
      requestMicros: 0,
      inputMicrosPerMillionTokens: 0,
      outputMicrosPerMillionTokens: 0,
      ...price,
    },
    models: {},
  };
}

const prompt = () => [
  { role: "system" as const, content: "abcd" },
  { role: "user" as const, content: "héllo" }, // 6 bytes
];

describe("PriceList", () => {
  it("charges the offline engine a small fixed price by default", () => {
    const prices = new PriceList(variableUpstreams());
    expect(prices.costMicros(offline, { inputTokens: 999, outputTokens: 999 })).toBe(100);
    expect(prices.reservationMicros([offline], () => [], 5)).toBe(100);
  });

  it("reads PERSONA_MODEL_PRICES as before: upstream:model over upstream:* over the defaults", () => {
    const prices = new PriceList(
      variableUpstreams(
        JSON.stringify({
          "openai-compatible:*": { inputMicrosPerMillionTokens: 1_000_000, maxOutputTokens: 10 },
          "openai-compatible:small": {
            requestMicros: 5,
            inputMicrosPerMillionTokens: 2_000_000,
            outputMicrosPerMillionTokens: 3_000_000,
            maxOutputTokens: 10,
          },
        }),
      ),
    );
    expect(prices.costMicros(hosted, { inputTokens: 12, outputTokens: 5 })).toBe(5 + 24 + 15);
    expect(
      prices.costMicros(
        { upstream: "openai-compatible", model: "other" },
        { inputTokens: 12, outputTokens: 5 },
      ),
    ).toBe(12);
  });

  it("reserves an upper bound: prompt bytes plus overhead, and the output cap, per candidate", () => {
    const prices = new PriceList(
      new Map([
        [
          "openai-compatible",
          upstream("openai-compatible", {
            inputMicrosPerMillionTokens: 1_000_000,
            outputMicrosPerMillionTokens: 1_000_000,
          }),
        ],
      ]),
    );
    // (4 + 16 + 6 + 16) input tokens and 100 output tokens, for each of 2 candidates.
    expect(prices.reservationMicros([hosted], prompt, 2)).toBe(2 * 42 + 2 * 100);
    const cost = prices.costMicros(hosted, { inputTokens: 2 * 42, outputTokens: 2 * 100 });
    expect(cost).toBeLessThanOrEqual(prices.reservationMicros([hosted], prompt, 2));
  });

  it("reserves the most any target of a route could cost, and charges the answering target's price", () => {
    const cheap = upstream("cheap", { inputMicrosPerMillionTokens: 1_000_000 }, 10);
    const dear = upstream("dear", { outputMicrosPerMillionTokens: 5_000_000 }, 100);
    const flat = upstream("flat", { requestMicros: 50 });
    const prices = new PriceList(
      new Map([
        ["cheap", cheap],
        ["dear", dear],
        ["flat", flat],
      ]),
    );
    const route = [
      { upstream: "cheap", model: "a" },
      { upstream: "dear", model: "b" },
      { upstream: "flat", model: "c" },
      { upstream: "not-configured", model: "d" },
    ];
    // cheap: 42 input tokens → 42; dear: 100 output tokens × 5 → 500; flat: 50.
    expect(prices.reservationMicros(route, prompt, 1)).toBe(500);
    const usage = { inputTokens: 40, outputTokens: 60 };
    expect(prices.costMicros({ upstream: "cheap", model: "a" }, usage)).toBe(40);
    expect(prices.costMicros({ upstream: "dear", model: "b" }, usage)).toBe(300);
    expect(prices.costMicros({ upstream: "flat", model: "c" }, usage)).toBe(50);
    expect(() => prices.costMicros({ upstream: "not-configured", model: "d" }, usage)).toThrow(
      /not configured/u,
    );
    expect(prices.reservationMicros([{ upstream: "not-configured", model: "d" }], prompt, 1)).toBe(
      0,
    );
  });

  it("prices a model of an upstream by its own entry when it has one", () => {
    const shared = upstream("shared", { inputMicrosPerMillionTokens: 1_000_000 });
    shared.models.big = {
      price: {
        requestMicros: 0,
        inputMicrosPerMillionTokens: 3_000_000,
        outputMicrosPerMillionTokens: 0,
      },
      maxOutputTokens: 7,
    };
    const prices = new PriceList(new Map([["shared", shared]]));
    expect(prices.priceOf({ upstream: "shared", model: "big" })).toMatchObject({
      inputMicrosPerMillionTokens: 3_000_000,
      maxOutputTokens: 7,
    });
    expect(prices.priceOf({ upstream: "shared", model: "small" })).toMatchObject({
      inputMicrosPerMillionTokens: 1_000_000,
      maxOutputTokens: 100,
    });
  });
});
