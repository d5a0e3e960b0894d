import { afterEach, describe, expect, it } from "vitest";
import {
  BadRequestError,
  ConfigurationError,
  InternalServerError,
  PersonaClient,
  PersonaError,
  RateLimitError,
  RequestAbortedError,
  TimeoutError,
} from "../src/index.js";
import {
  GENERATE_OK,
  json,
  type ScriptedAnswer,
  type ScriptedServer,
  startScriptedServer,
  text,
} from "./support/scripted-server.js";

// Retries, Retry-After, timeouts and aborts against a local node:http test
// double: the real service cannot yet be made to answer 429 or 503 on demand.

const KEY = `prk_${"t".repeat(32)}abc123`;
const PERSONA_ID = "3bee94bc-c62f-4582-9fa6-2c47d62ac431";
const HELLO = { messages: [{ role: "user" as const, content: "Hello" }] };
let server: ScriptedServer | undefined;

async function serve(
  script: ScriptedAnswer[],
  options: { maxRetries?: number; timeoutMs?: number } = {},
) {
  server = await startScriptedServer(script);
  const client = new PersonaClient({
    apiKey: KEY,
    personaId: PERSONA_ID,
    baseUrl: server.baseUrl,
    ...options,
  });
  return { server, client };
}

async function failure(promise: Promise<unknown>): Promise<PersonaError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PersonaError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("requests", () => {
  it("POSTs JSON to {baseUrl}/api/v1/generate with the key header and a request ID", async () => {
    const { server, client } = await serve([GENERATE_OK]);
    await client.generate(HELLO);
    await client.generate({ ...HELLO, includeVariations: true });
    const [first, second] = server.requests;
    expect(first?.method).toBe("POST");
    expect(first?.url).toBe("/api/v1/generate");
    expect(first?.headers["content-type"]).toBe("application/json");
    expect(first?.headers["x-api-key"]).toBe(KEY);
    expect(first?.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/u);
    expect(first?.headers["user-agent"]).toMatch(/^persona-reply-client\/0\.1\.6 /u);
    expect(JSON.parse(first?.body ?? "")).toEqual({ personaId: PERSONA_ID, ...HELLO });
    expect(JSON.parse(second?.body ?? "")).toEqual({
      personaId: PERSONA_ID,
      ...HELLO,
      includeVariations: true,
    });
  });

  it("passes rateLimits through when the service sends them", async () => {
    const rateLimits = [{ window: "minute", limit: 25, remaining: 24, reset: 1_763_700_060 }];
    const { client } = await serve([
      json(200, { status: "success", result: { finalReply: "Hi", chunks: ["Hi"] }, rateLimits }),
    ]);
    expect(await client.generate(HELLO)).toEqual({ finalReply: "Hi", chunks: ["Hi"], rateLimits });
  });

  it("rejects a 200 answer that is not the endpoint's shape", async () => {
    const { client } = await serve([text(200, "<html>proxy page</html>")]);
    const error = await failure(client.generate(HELLO));
    expect(error.constructor).toBe(PersonaError);
    expect(error.status).toBe(200);
    expect(error.message).toMatch(/unexpected body: expected JSON, got text\/plain/u);
    await server?.close();
    const second = await serve([json(200, { status: "success", result: { chunks: [] } })]);
    const shapeError = await failure(second.client.generate(HELLO));
    expect(shapeError.message).toMatch(/unexpected body: result\.finalReply: is required/u);
  });

  it("masks a key that a server echoes in its error body", async () => {
    const { client } = await serve([text(401, `invalid API key ${KEY}`)]);
    const error = await failure(client.generate(HELLO));
    expect(error.message).toBe(`invalid API key prk_…c123`);
    expect(error.body).not.toContain(KEY);
  });
});

describe("retries (429, 5xx, connection errors)", () => {
  it("waits Retry-After seconds after a 429, then succeeds", async () => {
    const { server, client } = await serve([
      json(429, { error: { type: "rate_limited", message: "slow down" } }, { "retry-after": "1" }),
      GENERATE_OK,
    ]);
    const reply = await client.generate(HELLO);
    expect(reply.finalReply).toBe("Hello there!");
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    // Behaviour, not speed: the retry must not come before the server's Retry-After.
    expect((second?.arrivedAt ?? 0) - (first?.arrivedAt ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("gives up after maxRetries with RateLimitError carrying retryAfter and the JSON message", async () => {
    const { server, client } = await serve(
      [
        json(
          429,
          { error: { type: "rate_limited", message: "minute window used up" } },
          { "retry-after": "0" },
        ),
      ],
      { maxRetries: 2 },
    );
    const error = await failure(client.generate(HELLO));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(0);
    expect(error.message).toBe("minute window used up");
    expect(error.type).toBe("rate_limited");
    expect(server.requests).toHaveLength(3);
  });

  it("does not wait for a Retry-After longer than a minute: it throws at once", async () => {
    const { server, client } = await serve([
      text(429, "daily quota exhausted", { "retry-after": "3600" }),
    ]);
    const error = await failure(client.generate(HELLO));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(3600);
    expect(error.message).toBe("daily quota exhausted");
    expect(server.requests).toHaveLength(1);
  });

  it("leaves retryAfter undefined when the 429 has no Retry-After", async () => {
    const { client } = await serve([text(429, "insufficient balance")], { maxRetries: 0 });
    const error = await failure(client.generate(HELLO));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeUndefined();
  });

  it("retries a 503 with backoff and succeeds", async () => {
    const { server, client } = await serve([
      json(503, { error: { type: "unavailable", message: "try again" } }),
      GENERATE_OK,
    ]);
    await expect(client.generate(HELLO)).resolves.toHaveProperty("finalReply", "Hello there!");
    expect(server.requests).toHaveLength(2);
  });

  it("reads 5xx JSON and plain-text bodies into InternalServerError", async () => {
    const { client } = await serve(
      [json(500, { error: { type: "internal_error", message: "internal server error" } })],
      { maxRetries: 0 },
    );
    const error = await failure(client.personify({ raw: "Hello" }));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.message).toBe("internal server error");
    expect(error.type).toBe("internal_error");
    await server?.close();
    const proxy = await serve([text(502, "Bad Gateway\n")], { maxRetries: 0 });
    const proxyError = await failure(proxy.client.personify({ raw: "Hello" }));
    expect(proxyError).toBeInstanceOf(InternalServerError);
    expect(proxyError.message).toBe("Bad Gateway");
    expect(proxyError.type).toBeUndefined();
  });

  it("does not retry a 400", async () => {
    const { server, client } = await serve([text(400, "raw: must be non-empty text")]);
    const error = await failure(client.personify({ raw: "" }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(server.requests).toHaveLength(1);
  });

  it("retries a dropped connection", async () => {
    const { server, client } = await serve([{ drop: true }, GENERATE_OK]);
    await expect(client.generate(HELLO)).resolves.toHaveProperty("finalReply");
    expect(server.requests).toHaveLength(2);
  });
});

describe("the retry option", () => {
  it("retries only the statuses it lists, and tells onRetry before each wait", async () => {
    const waits: number[] = [];
    const tooMany = text(429, "slow down", { "retry-after": "0" });
    const { server, client } = await serve([text(503, "busy"), tooMany, GENERATE_OK]);
    const error = await failure(
      client.generate(HELLO, {
        retry: {
          statuses: ["5xx"],
          initialDelayMs: 1,
          jitter: 0,
          onRetry: (_e, ms) => waits.push(ms),
        },
      }),
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect(server.requests).toHaveLength(2);
    expect(waits).toEqual([1]);
  });

  it("refuses a policy it cannot follow", () => {
    const base = { apiKey: KEY, personaId: PERSONA_ID };
    for (const retry of [
      { maxRetries: 11 },
      { initialDelayMs: -1 },
      { maxRetryAfterMs: Number.POSITIVE_INFINITY },
      { jitter: 2 },
      { statuses: [700] },
    ]) {
      expect(() => new PersonaClient({ ...base, retry })).toThrow(ConfigurationError);
    }
  });
});

describe("timeouts and aborts", () => {
  it("throws TimeoutError when no answer comes in time, and does not retry it", async () => {
    const { server, client } = await serve([{ hang: true }], { timeoutMs: 200, maxRetries: 2 });
    const error = await failure(client.generate(HELLO));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(200);
    expect(error.message).toMatch(/no complete response within 200 ms/u);
    expect(server.requests).toHaveLength(1);
  });

  it("takes a per-call timeout over the client's", async () => {
    const { client } = await serve([{ hang: true }], { timeoutMs: 60_000 });
    const error = await failure(client.personify({ raw: "Hello" }, { timeoutMs: 150 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(150);
  });

  it("stops at the caller's AbortSignal", async () => {
    const { server, client } = await serve([{ hang: true }]);
    const controller = new AbortController();
    const pending = failure(client.generate(HELLO, { signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort(new Error("user left"));
    const error = await pending;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error.cause).toEqual(new Error("user left"));
  });

  it("sends nothing when the signal is already aborted", async () => {
    const { server, client } = await serve([GENERATE_OK]);
    const error = await failure(client.generate(HELLO, { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it("stops waiting for a retry when the signal aborts", async () => {
    const { server, client } = await serve([text(429, "slow down", { "retry-after": "30" })]);
    const controller = new AbortController();
    const pending = failure(client.generate(HELLO, { signal: controller.signal }));
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error.message).toMatch(/aborted while waiting to retry/u);
    expect(server.requests).toHaveLength(1);
  });
});
