import { describe, expect, it } from "vitest";
import { PriceList } from "./price-list.js";

const offline = { provider: "offline", model: "rules" } as const;
const hosted = { provider: "openai-compatible", model: "small" } as const;

describe("PriceList", () => {
  it("charges the offline engine a small fixed price by default", () => {
    const prices = new PriceList();
    expect(prices.costMicros(offline, { inputTokens: 999, outputTokens: 999 })).toBe(100);
    expect(prices.reservationMicros(offline, () => [], 5)).toBe(100);
    expect(prices.chargesTokens(offline)).toBe(false);
  });

  it("prefers provider:model over provider:* over the defaults", () => {
    const prices = new PriceList({
      "openai-compatible:*": {
        requestMicros: 0,
        inputMicrosPerMillionTokens: 1_000_000,
        outputMicrosPerMillionTokens: 0,
        maxOutputTokens: 10,
      },
      "openai-compatible:small": {
        requestMicros: 5,
        inputMicrosPerMillionTokens: 2_000_000,
        outputMicrosPerMillionTokens: 3_000_000,
        maxOutputTokens: 10,
      },
    });
    expect(prices.costMicros(hosted, { inputTokens: 12, outputTokens: 5 })).toBe(5 + 24 + 15);
    expect(
      prices.costMicros(
        { provider: "openai-compatible", model: "other" },
        { inputTokens: 12, outputTokens: 5 },
      ),
    ).toBe(12);
  });

  it("reserves an upper bound: prompt bytes plus overhead, and the output cap, per candidate", () => {
    const prices = new PriceList({
      "openai-compatible:small": {
        requestMicros: 0,
        inputMicrosPerMillionTokens: 1_000_000,
        outputMicrosPerMillionTokens: 1_000_000,
        maxOutputTokens: 100,
      },
    });
    const prompt = () => [
      { role: "system" as const, content: "abcd" },
      { role: "user" as const, content: "héllo" }, // 6 bytes
    ];
    // (4 + 16 + 6 + 16) input tokens and 100 output tokens, for each of 2 candidates.
    expect(prices.reservationMicros(hosted, prompt, 2)).toBe(2 * 42 + 2 * 100);
    const cost = prices.costMicros(hosted, { inputTokens: 2 * 42, outputTokens: 2 * 100 });
    expect(cost).toBeLessThanOrEqual(prices.reservationMicros(hosted, prompt, 2));
  });
});
