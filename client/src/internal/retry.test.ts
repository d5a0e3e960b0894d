import { describe, expect, it } from "vitest";
import { ConfigurationError, ConnectionError, TimeoutError } from "../errors/client-errors.js";
import { PersonaError } from "../errors/persona-error.js";
import { DEFAULT_RETRY_POLICY, isRetryable, retryDelay } from "./retry.js";

const response = (status: number, headers: Record<string, string> = {}) =>
  PersonaError.fromResponse({
    status,
    headers: { "content-type": "text/plain", ...headers },
    body: "x",
  });

describe("isRetryable (retries are explicit)", () => {
  it("retries connection errors, 408, 429 and 5xx only", () => {
    expect(isRetryable(new ConnectionError("down"))).toBe(true);
    for (const status of [408, 429, 500, 502, 503, 504])
      expect(isRetryable(response(status))).toBe(true);
    for (const status of [400, 401, 402, 403, 404, 422])
      expect(isRetryable(response(status))).toBe(false);
    expect(isRetryable(new TimeoutError("slow", 10))).toBe(false);
    expect(isRetryable(new ConfigurationError("no key"))).toBe(false);
    expect(isRetryable(new Error("other"))).toBe(false);
  });
});

describe("retryDelay", () => {
  it("doubles from 0.5 s up to 8 s, less up to 25 % jitter", () => {
    const error = response(503);
    expect([0, 1, 2, 3, 4, 5].map((retry) => retryDelay(error, retry, undefined, () => 0))).toEqual(
      [500, 1000, 2000, 4000, 8000, 8000],
    );
    expect(retryDelay(error, 0, undefined, () => 1)).toBe(375);
  });

  it("honours Retry-After up to 60 s, and gives up beyond", () => {
    expect(retryDelay(response(429, { "retry-after": "3" }), 0)).toBe(3000);
    expect(retryDelay(response(503, { "retry-after": "60" }), 2)).toBe(60_000);
    expect(retryDelay(response(429, { "retry-after": "61" }), 0)).toBeUndefined();
  });
});

describe("a retry policy other than the default", () => {
  it("retries connection errors and only the statuses it lists", () => {
    const policy = { statuses: [408, "5xx"] as const };
    expect(isRetryable(new ConnectionError("down"), policy)).toBe(true);
    for (const status of [408, 500, 503, 599])
      expect(isRetryable(response(status), policy)).toBe(true);
    for (const status of [429, 400, 600]) expect(isRetryable(response(status), policy)).toBe(false);
    expect(isRetryable(new TimeoutError("slow", 10), policy)).toBe(false);
  });

  it("waits without jitter up to its ceiling, and its own longest Retry-After", () => {
    const policy = {
      ...DEFAULT_RETRY_POLICY,
      initialDelayMs: 250,
      maxDelayMs: 1_000,
      maxRetryAfterMs: 10_000,
      jitter: 0,
    };
    const error = response(503);
    expect([0, 1, 2, 3].map((retry) => retryDelay(error, retry, policy, () => 1))).toEqual([
      250, 500, 1000, 1000,
    ]);
    expect(retryDelay(response(503, { "retry-after": "10" }), 0, policy)).toBe(10_000);
    expect(retryDelay(response(503, { "retry-after": "11" }), 0, policy)).toBeUndefined();
  });
});
