import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import type { RunningExampleServer } from "../server/server.js";
import {
  postJson,
  type StandIn,
  serviceEnvironment,
  startExample,
  startStandIn,
} from "./support/example-fixture.js";

const ROUTES = [
  ["/api/quickstart", { prompt: "Hi" }],
  ["/api/chat", { messages: [{ role: "user", content: "Hi" }] }],
  ["/api/personify", { raw: "Hi" }],
] as const;

type ErrorBody = { error: { type: string; message: string } };

/** The example server in front of `serviceUrl`, for the length of `run`. */
async function withExample(
  environment: Record<string, string | undefined>,
  run: (example: RunningExampleServer) => Promise<void>,
) {
  const example = await startExample(environment);
  try {
    await run(example);
  } finally {
    await example.stop();
  }
}

let api: ApiFixture;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.stop());

describe("provider errors (docs/API.md §4.6): the service's status when 4xx, else 502 (503 unreachable), with its message", () => {
  it("a key the service does not know: 401 from every route, without the key in the message", async () => {
    const wrongKey = `prk_${"x".repeat(38)}`;
    await withExample(
      { ...serviceEnvironment(api), SERVICE_API_KEY: wrongKey },
      async (example) => {
        for (const [path, body] of ROUTES) {
          const result = await postJson(`${example.url}${path}`, body);
          expect(result.status, path).toBe(401);
          const error = (result.body as ErrorBody).error;
          expect(error.type, path).toBe("provider");
          expect(error.message.length, path).toBeGreaterThan(0);
          expect(result.text, path).not.toContain("x".repeat(20));
        }
      },
    );
  });

  describe("an upstream 429 is passed through as provider", () => {
    let standIn: StandIn;
    beforeAll(async () => {
      // Stands in for a service whose account has run out of quota: the
      // completions error object (docs/API.md §7.3) on /completions, the JSON error
      // body of /personify (docs/API.md §7.2) elsewhere.
      standIn = await startStandIn(({ path }, response) => {
        const body = path.endsWith("/completions")
          ? {
              error: {
                message: "quota exhausted: the per-minute limit of 25 requests is used up",
                type: "rate_limit_error",
                param: null,
                code: null,
              },
            }
          : {
              error: {
                type: "rate_limited",
                message: "quota exhausted: the per-minute limit of 25 requests is used up",
              },
            };
        response.writeHead(429, { "content-type": "application/json", "retry-after": "30" });
        response.end(JSON.stringify(body));
      });
    });
    afterAll(() => standIn.close());

    it("on every route, with the service's message", async () => {
      await withExample(
        { ...serviceEnvironment(api), SERVICE_BASE_URL: standIn.url },
        async (example) => {
          for (const [path, body] of ROUTES) {
            const result = await postJson(`${example.url}${path}`, body);
            expect(result.status, path).toBe(429);
            expect(result.body, path).toEqual({
              error: {
                type: "provider",
                message: "quota exhausted: the per-minute limit of 25 requests is used up",
              },
            });
          }
        },
      );
      expect(standIn.requests).toEqual([
        "/api/v1/completions",
        "/api/v1/completions",
        "/api/v1/personify",
      ]);
    });
  });

  it("an upstream 5xx becomes 502 with the service's message", async () => {
    const standIn = await startStandIn((_request, response) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { type: "server_error", message: "the store is down" } }),
      );
    });
    try {
      await withExample(
        { ...serviceEnvironment(api), SERVICE_BASE_URL: standIn.url },
        async (example) => {
          for (const [path, body] of ROUTES) {
            const result = await postJson(`${example.url}${path}`, body);
            expect(result.status, path).toBe(502);
            expect(result.body, path).toEqual({
              error: { type: "provider", message: "the store is down" },
            });
          }
        },
      );
    } finally {
      await standIn.close();
    }
  });

  it("a service that cannot be reached: 503 that says so; its address only in the server's log", async () => {
    // A port that was just free: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const origin = `http://127.0.0.1:${port}`;
    const logged: Array<Record<string, unknown>> = [];
    const example = await startExample(
      { ...serviceEnvironment(api), SERVICE_BASE_URL: origin },
      undefined,
      { log: (_level, message, fields) => logged.push({ message, ...fields }) },
    );
    try {
      for (const [path, body] of ROUTES) {
        const result = await postJson(`${example.url}${path}`, body);
        expect(result.status, path).toBe(503);
        const error = (result.body as ErrorBody).error;
        expect(error.type, path).toBe("provider");
        expect(error.message, path).toBe(
          "could not reach the service; the example server's log names the address it tried",
        );
        expect(JSON.stringify(result.body), path).not.toContain(String(port));
      }
      expect(logged).toHaveLength(ROUTES.length);
      for (const line of logged) expect(line).toMatchObject({ status: 503, service: origin });
    } finally {
      await example.stop();
    }
  });

  it("a completions answer with no choice is a 502 provider error", async () => {
    const standIn = await startStandIn((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "cmpl-empty",
          object: "text_completion",
          created: 0,
          model: api.personaId,
          choices: [],
        }),
      );
    });
    try {
      await withExample(
        { ...serviceEnvironment(api), SERVICE_BASE_URL: standIn.url },
        async (example) => {
          const result = await postJson(`${example.url}/api/quickstart`, { prompt: "Hi" });
          expect(result.status).toBe(502);
          expect(result.body).toEqual({
            error: { type: "provider", message: "the service returned no completion" },
          });
        },
      );
    } finally {
      await standIn.close();
    }
  });
});
