import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "./rate-limit-headers.js";
import { describeWindows, refusal, resolveRateLimits } from "./rate-limit-windows.js";

describe("rate-limit windows and headers", () => {
  const now = 1_700_000_000_500;
  const counters = {
    minute: { start: now - 10_000, count: 25 },
    hour: { start: now - 10_000, count: 30 },
    day: { start: now - 90_000_000, count: 499 }, // the day window is over: it counts as fresh
  };
  const limits = { minute: 25, hour: 100, day: 500 };

  it("describes each window's limit, what remains and when it resets", () => {
    expect(describeWindows(counters, limits, now)).toEqual([
      { window: "minute", limit: 25, remaining: 0, reset: Math.ceil((now + 50_000) / 1000) },
      { window: "hour", limit: 100, remaining: 70, reset: Math.ceil((now + 3_590_000) / 1000) },
      { window: "day", limit: 500, remaining: 500, reset: Math.ceil((now + 86_400_000) / 1000) },
    ]);
  });

  it("waits for the longest full window in Retry-After", () => {
    expect(refusal(counters, limits, now).retryAfterSeconds).toBe(50);
    const dayFull = { ...counters, day: { start: now - 1000, count: 500 } };
    expect(refusal(dayFull, limits, now).retryAfterSeconds).toBe(86_399);
  });

  it("writes the IETF RateLimit-Policy and RateLimit fields", () => {
    const windows = describeWindows(counters, limits, now);
    expect(rateLimitHeaders(windows, Math.ceil(now / 1000))).toEqual({
      "RateLimit-Policy": '"minute";q=25;w=60, "hour";q=100;w=3600, "day";q=500;w=86400',
      RateLimit: '"minute";r=0;t=50, "hour";r=70;t=3590, "day";r=500;t=86400',
    });
  });

  it("takes the key's override, else the account's, else the default (docs/API.md §8.1–8.2)", () => {
    expect(
      resolveRateLimits({ minute: 5, hour: null, day: null }, { minute: 10, hour: 200, day: null }),
    ).toEqual({ minute: 5, hour: 200, day: 500 });
  });
});
