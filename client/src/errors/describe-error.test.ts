import { describe, expect, it } from "vitest";
import {
  ConfigurationError,
  ConnectionError,
  RequestAbortedError,
  TimeoutError,
} from "./client-errors.js";
import { describeError, retryAfterAction } from "./describe-error.js";
import { PersonaError } from "./persona-error.js";

const response = (status: number, body = "x", headers: Record<string, string> = {}) =>
  PersonaError.fromResponse({
    status,
    headers: { "content-type": "application/json", ...headers },
    body,
  });

describe("describeError", () => {
  it("gives each error class of the package its own kind", () => {
    const cases: [unknown, string][] = [
      [new ConfigurationError("no key"), "configuration"],
      [response(400), "invalid_request"],
      [response(401), "authentication"],
      [response(402), "payment_required"],
      [response(403), "permission"],
      [response(404), "not_found"],
      [response(422), "invalid_request"],
      [response(429), "rate_limited"],
      [
        response(429, JSON.stringify({ error: { type: "insufficient_balance", message: "x" } })),
        "balance_exhausted",
      ],
      [response(500), "server"],
      [response(503), "server"],
      [new TimeoutError("slow", 10), "timeout"],
      [new ConnectionError("down"), "connection"],
      [new RequestAbortedError("stop"), "aborted"],
      [response(413), "unexpected_status"],
      [new PersonaError("odd"), "failure"],
      [new Error("other"), "unexpected"],
      ["a string", "unexpected"],
    ];
    for (const [error, kind] of cases)
      expect([error, describeError(error).kind]).toEqual([error, kind]);
  });

  it("says what happened and what to do, and carries the 429's Retry-After", () => {
    const described = describeError(response(429, "x", { "retry-after": "41.2" }));
    expect(described).toMatchObject({
      happened: "the rate limit was reached",
      action: "rate limit reached; try again in 42 s",
      retryable: true,
      retryAfter: 41.2,
    });
    expect(described.personaError?.status).toBe(429);
    expect(describeError(new Error("x")).personaError).toBeUndefined();
    expect(retryAfterAction(undefined)).toBe("rate limit or quota reached; try again later");
    expect(describeError(response(401)).retryable).toBe(false);
  });
});
