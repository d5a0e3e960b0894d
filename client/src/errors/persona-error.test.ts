import { describe, expect, it } from "vitest";
import { ConfigurationError, ConnectionError, TimeoutError } from "./client-errors.js";
import {
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  PersonaError,
  parseRetryAfter,
  RateLimitError,
  UnprocessableEntityError,
} from "./persona-error.js";

const TEXT = { "content-type": "text/plain; charset=utf-8" };
const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };

describe("PersonaError.fromResponse (docs/API.md §7)", () => {
  it("maps each status to its class", () => {
    const cases = [
      [400, BadRequestError],
      [401, AuthenticationError],
      [402, PaymentRequiredError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [422, UnprocessableEntityError],
      [429, RateLimitError],
      [500, InternalServerError],
      [502, InternalServerError],
      [504, InternalServerError],
    ] as const;
    for (const [status, type] of cases) {
      const error = PersonaError.fromResponse({ status, headers: TEXT, body: "nope" });
      expect(error).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(PersonaError);
      expect(error.status).toBe(status);
      expect(error.name).toBe(type.name);
    }
    const other = PersonaError.fromResponse({ status: 415, headers: TEXT, body: "send JSON" });
    expect(other.constructor).toBe(PersonaError);
    expect(other.message).toBe("send JSON");
  });

  it("reads the message from a plain-text body, whatever it looks like", () => {
    const error = PersonaError.fromResponse({
      status: 404,
      headers: TEXT,
      body: '{"error":{"type":"x","message":"looks like JSON"}}',
    });
    expect(error.message).toBe('{"error":{"type":"x","message":"looks like JSON"}}');
    expect(error.type).toBeUndefined();
  });

  it("reads error.message and error.type from a JSON body", () => {
    const body = JSON.stringify({ error: { type: "upstream_error", message: "model failed" } });
    const error = PersonaError.fromResponse({
      status: 502,
      headers: new Headers({ ...JSON_TYPE, "x-request-id": "req-1" }),
      body,
    });
    expect(error.message).toBe("model failed");
    expect(error.type).toBe("upstream_error");
    expect(error.body).toBe(body);
    expect(error.requestId).toBe("req-1");
    expect(error.headers["content-type"]).toBe(JSON_TYPE["content-type"]);
  });

  it("falls back to other JSON shapes and to the raw text of unparsable JSON", () => {
    const completions = JSON.stringify({
      error: { message: "bad model", type: "invalid_request_error", param: "model", code: null },
    });
    expect(
      PersonaError.fromResponse({ status: 404, headers: JSON_TYPE, body: completions }).message,
    ).toBe("bad model");
    expect(
      PersonaError.fromResponse({ status: 500, headers: JSON_TYPE, body: '{"message":"m"}' })
        .message,
    ).toBe("m");
    expect(
      PersonaError.fromResponse({ status: 500, headers: JSON_TYPE, body: "{oops" }).message,
    ).toBe("{oops");
  });

  it("names the operation when the body is empty and cuts long bodies", () => {
    const empty = PersonaError.fromResponse(
      { status: 503, headers: {}, body: "" },
      { operation: "POST /api/v1/generate" },
    );
    expect(empty.message).toBe("POST /api/v1/generate failed with HTTP 503 and an empty body");
    const long = PersonaError.fromResponse({ status: 500, headers: TEXT, body: "x".repeat(2000) });
    expect(long.message).toHaveLength(501);
    expect(long.body).toHaveLength(2000);
  });

  it("masks the key and anything key-shaped in message and body", () => {
    // Built at run time: no key-shaped literal lives in the repository.
    const key = `prk_${"AbCd".repeat(8)}Zz9Xy8`;
    const error = PersonaError.fromResponse(
      { status: 401, headers: TEXT, body: `key ${key} and key-shaped prk_abcdefghijklmnopqrstu` },
      { redact: [key] },
    );
    expect(error.message).toBe(`key prk_…${key.slice(-4)} and key-shaped prk_…rstu`);
    expect(error.body).not.toContain(key);
  });

  it("reads Retry-After on 429 as seconds", () => {
    const error = PersonaError.fromResponse({
      status: 429,
      headers: { ...TEXT, "Retry-After": "17" },
      body: "slow down",
    });
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(17);
  });
});

describe("parseRetryAfter (RFC 9110 §10.2.3)", () => {
  it("reads delay seconds and HTTP dates", () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120);
    expect(parseRetryAfter("Sat, 21 Nov 2026 10:00:30 GMT", now)).toBe(30);
    expect(parseRetryAfter("Sat, 21 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe("errors without a response", () => {
  it("share the root class and have no status", () => {
    for (const error of [
      new ConnectionError("down"),
      new TimeoutError("slow", 5),
      new ConfigurationError("no key"),
    ]) {
      expect(error).toBeInstanceOf(PersonaError);
      expect(error.status).toBeUndefined();
      expect(error.body).toBe("");
      expect(error.headers).toEqual({});
    }
  });
});
