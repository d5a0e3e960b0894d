import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  InternalServerError,
  PersonaClient,
  RateLimitError,
  RequestAbortedError,
} from "@persona-reply/client";
import { afterEach, describe, expect, it } from "vitest";
import { TOOL_RETRY_POLICY } from "./tool-retry-policy.js";

// A scripted node:http double of the service: each request takes the next
// answer of the script, so retries can be counted.

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

const OK: Answer = {
  status: 200,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ status: "success", result: { finalReply: "Hi!", chunks: ["Hi!"] } }),
};
const servers: http.Server[] = [];

async function scripted(
  answers: Answer[],
): Promise<{ client: PersonaClient; count: () => number }> {
  let count = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    const answer = answers[Math.min(count, answers.length - 1)] ?? OK;
    count += 1;
    response.writeHead(answer.status, answer.headers ?? { "content-type": "text/plain" });
    response.end(answer.body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = new PersonaClient({
    apiKey: `prk_${"Rt5".repeat(13)}`,
    personaId: "11111111-1111-4111-8111-111111111111",
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    retry: TOOL_RETRY_POLICY,
  });
  return { client, count: () => count };
}

const input = { messages: [{ role: "user" as const, content: "Hi" }] };

afterEach(async () => {
  for (const server of servers.splice(0)) {
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("TOOL_RETRY_POLICY", () => {
  it("retries a 503 and a 502 and returns the first success", async () => {
    const json = { "content-type": "application/json" };
    const failure = JSON.stringify({ error: { type: "upstream_error", message: "down" } });
    const { client, count } = await scripted([
      { status: 503, headers: json, body: failure },
      { status: 502, headers: json, body: failure },
      OK,
    ]);
    const waits: number[] = [];
    const reply = await client.generate(input, {
      retry: { initialDelayMs: 1, onRetry: (_error, delay) => waits.push(delay) },
    });
    expect(reply.finalReply).toBe("Hi!");
    expect(count()).toBe(3);
    expect(waits).toEqual([1, 2]);
  });

  it("gives up after maxRetries with the last error", async () => {
    const { client, count } = await scripted([
      { status: 500, headers: { "content-type": "text/plain" }, body: "broken" },
    ]);
    await expect(
      client.generate(input, { retry: { maxRetries: 1, initialDelayMs: 1 } }),
    ).rejects.toBeInstanceOf(InternalServerError);
    expect(count()).toBe(2);
  });

  it("never retries a 429, even with a short Retry-After", async () => {
    const { client, count } = await scripted([
      {
        status: 429,
        headers: { "content-type": "application/json", "retry-after": "1" },
        body: JSON.stringify({ error: { type: "rate_limited", message: "slow down" } }),
      },
      OK,
    ]);
    const error = await client.generate(input).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(1);
    expect(count()).toBe(1);
  });

  it("does not wait longer than 10 s for a Retry-After on a 503", async () => {
    const { client, count } = await scripted([
      { status: 503, headers: { "content-type": "text/plain", "retry-after": "30" }, body: "busy" },
      OK,
    ]);
    await expect(client.generate(input)).rejects.toThrow("busy");
    expect(count()).toBe(1);
  });

  it("stops waiting when the tool call is cancelled", async () => {
    const { client } = await scripted([
      { status: 503, headers: { "content-type": "text/plain" }, body: "busy" },
    ]);
    const controller = new AbortController();
    const call = client.generate(input, {
      signal: controller.signal,
      retry: { initialDelayMs: 5_000, onRetry: () => controller.abort() },
    });
    await expect(call).rejects.toBeInstanceOf(RequestAbortedError);
  });

  it("retries a 408 and a 504, but not a 400", async () => {
    const text = { "content-type": "text/plain" };
    const { client, count } = await scripted([
      { status: 408, headers: text, body: "slow" },
      { status: 504, headers: text, body: "gateway" },
      { status: 400, headers: text, body: "bad" },
      OK,
    ]);
    await expect(
      client.generate(input, { retry: { maxRetries: 5, initialDelayMs: 1 } }),
    ).rejects.toThrow("bad");
    expect(count()).toBe(3);
  });
});
