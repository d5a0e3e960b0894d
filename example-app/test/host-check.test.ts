import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../../test-support/raw-request.js";
import type { RunningExampleServer } from "../server/server.js";
import { type StandIn, startExample, startStandIn } from "./support/example-fixture.js";

// The DNS-rebinding guard of the example server (server/host-check.ts): it
// holds the API key, so a page on another name resolved to 127.0.0.1 must not
// reach /api/chat through the developer's browser.

const PERSONA_ID = "3e7b8c9d-1a2b-4c3d-8e4f-5a6b7c8d9e0f";
let service: StandIn;
let example: RunningExampleServer;

beforeAll(async () => {
  // A stand-in for the service that answers every completion, so a request that gets
  // through shows up in its list.
  service = await startStandIn((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: "cmpl-1",
        object: "text_completion",
        created: 0,
        model: PERSONA_ID,
        choices: [
          { text: "Hi!", index: 0, logprobs: null, finish_reason: "stop", chunks: ["Hi!"] },
        ],
      }),
    );
  });
  example = await startExample({
    SERVICE_API_KEY: `prk_${"k".repeat(38)}`,
    SERVICE_PERSONA_ID: PERSONA_ID,
    SERVICE_BASE_URL: service.url,
    EXAMPLE_ALLOWED_HOSTS: "myapp.test, .dev.example",
  });
});
afterAll(async () => {
  await example?.stop();
  await service?.close();
});

function send(method: "GET" | "POST", pathname: string, host: string, body?: unknown) {
  return rawRequest(example.url, pathname, { method, host, body });
}

const chat = { messages: [{ role: "user", content: "Hello!" }] };

describe("the example server on loopback answers loopback and allowed Host names only", () => {
  it("refuses /api/chat under a foreign Host with a 403 validation error, calling nothing", async () => {
    const before = service.requests.length;
    for (const host of ["evil.example", `evil.example:${example.port}`, "localhost.evil.example"]) {
      const answer = await send("POST", "/api/chat", host, chat);
      expect(answer.status, host).toBe(403);
      expect(answer.type).toMatch(/^application\/json/u);
      expect(JSON.parse(answer.text)).toEqual({
        error: {
          type: "validation",
          message: expect.stringContaining("EXAMPLE_ALLOWED_HOSTS"),
        },
      });
    }
    expect(service.requests.length).toBe(before);
  });

  it("refuses the pages under a foreign Host with a plain-text 403", async () => {
    const answer = await send("GET", "/", `evil.example:${example.port}`);
    expect(answer.status).toBe(403);
    expect(answer.type).toMatch(/^text\/plain/u);
    expect(answer.text).toContain('not on "evil.example"');
  });

  it("serves localhost, 127.0.0.1, [::1] (with a port or without) and the allowed names", async () => {
    for (const name of ["localhost", "127.0.0.1", "[::1]", "myapp.test", "web.dev.example"]) {
      for (const host of [name, `${name}:${example.port}`]) {
        const answer = await send("POST", "/api/chat", host, chat);
        expect(answer.status, host).toBe(200);
        expect(JSON.parse(answer.text)).toMatchObject({ reply: "Hi!", model: PERSONA_ID });
      }
    }
  });
});
