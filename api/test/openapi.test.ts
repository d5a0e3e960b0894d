import http from "node:http";
import type { AddressInfo } from "node:net";
import { parsePaymentRequired } from "@x402/core/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { listRoutes } from "../src/http/route-inventory.js";
import type { HttpMethod, OpenApiDocument } from "../src/openapi/openapi-document.js";
import type { Persona } from "../src/personas/persona.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { OpenApiResponseChecker, receive } from "./support/openapi-check.js";
import { startTestService, type TestService } from "./support/test-service.js";

let upstream: FakeUpstream;
let service: TestService;
let document: OpenApiDocument;
let checker: OpenApiResponseChecker;
let routed: Persona;
/** Statuses seen per documented operation, to show the suite reached each one. */
const seen = new Map<string, Set<number>>();

const PAY_TO = "0x00000000000000000000000000000000000000a1";

beforeAll(async () => {
  upstream = await startFakeUpstream();
  service = await startTestService({
    PERSONA_OPENAI_BASE_URL: upstream.baseUrl,
    PERSONA_PROVIDER_TIMEOUT_MS: "400",
    PERSONA_PROVIDER_MAX_RETRIES: "0",
    PERSONA_X402_PAY_TO: PAY_TO,
  });
  routed = await service.services.personas.create(service.accountId, {
    ...readExamplePersona(),
    personifyAccess: true,
    route: [{ upstream: "openai-compatible", model: "fake-model" }],
  });
  const response = await fetch(`${service.url}/api/v1/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/u);
  document = (await response.json()) as OpenApiDocument;
  checker = new OpenApiResponseChecker(document);
});
afterAll(async () => {
  await service?.stop();
  await upstream?.close();
});

/** Sends a request and checks its response against the served document. */
async function expectConforming(
  method: HttpMethod,
  path: string,
  init: RequestInit & { url?: string } = {},
) {
  const url = init.url ?? `${service.url}${path}`;
  const response = await receive(
    await fetch(url, { method: method.toUpperCase(), redirect: "manual", ...init }),
  );
  expect(checker.problems(method, path, response), `${method} ${path}`).toEqual([]);
  const key = `${method} ${path}`;
  seen.set(key, (seen.get(key) ?? new Set()).add(response.status));
  return response;
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  headers: { "content-type": "application/json", ...headers },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

describe("the OpenAPI document and the running app have the same routes", () => {
  it("documents every express route, and routes every documented operation", () => {
    const routes = listRoutes(createApp(service.services));
    const toOpenApi = (path: string) => path.replace(/:(\w+)/gu, "{$1}");
    const served = routes
      .filter((route) => route.method !== "ALL" && route.method !== "HEAD")
      .map((route) => `${route.method} ${toOpenApi(route.path)}`)
      .sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    expect(served).toEqual(documented);
    // Catch-all routes (the 405 answers of the endpoints) are on documented paths.
    for (const route of routes.filter((entry) => entry.method === "ALL")) {
      expect(document.paths[toOpenApi(route.path)], route.path).toBeDefined();
    }
    expect(served.length).toBeGreaterThanOrEqual(20);
  });

  it("serves /docs as the Redoc page of this document, its scripts from this origin", async () => {
    const response = await expectConforming("get", "/docs");
    const policy = response.headers.get("content-security-policy") ?? "";
    expect(policy).toMatch(/script-src 'self'(;|$)/u);
    expect(policy).toMatch(/worker-src 'self' blob:/u);
    expect(response.text).toContain('data-spec-url="/api/v1/openapi.json"');
    const scripts = [...response.text.matchAll(/<script src="([^"]+)"/gu)].map((m) => m[1] ?? "");
    expect(scripts).toHaveLength(2);
    for (const src of scripts) {
      expect(src.startsWith("/docs/assets/"), src).toBe(true);
      const script = await expectConforming("get", new URL(src, service.url).pathname, {
        url: `${service.url}${src}`,
      });
      expect(script.status).toBe(200);
      expect(script.headers.get("cache-control")).toContain("immutable");
      // Offline: no address the browser would load from elsewhere (the Redocly logo is swapped out).
      expect(script.text.includes("cdn.redoc.ly"), src).toBe(false);
      // Its source map is not served, so the bundle does not point at one.
      expect(/\/\/# sourceMappingURL=\S+\s*$/u.test(script.text), src).toBe(false);
    }
    // Other pages keep the strict policy.
    const landing = await fetch(`${service.url}/`);
    expect(landing.headers.get("content-security-policy")).not.toContain("worker-src");
  });
});

describe("real responses of the running service match the document", () => {
  const hello = () => ({
    personaId: service.persona.id,
    messages: [{ role: "user", content: "Hello!" }],
  });

  it("200s of the three endpoints, with either key header", async () => {
    const key = { "x-api-key": service.key };
    const bearer = { authorization: `Bearer ${service.key}` };
    const generated = await expectConforming("post", "/api/v1/generate", json(hello(), key));
    expect(generated.status).toBe(200);
    expect(JSON.parse(generated.text).rateLimits).toHaveLength(3);
    const variations = await expectConforming(
      "post",
      "/api/v1/generate",
      json({ ...hello(), includeVariations: true }, bearer),
    );
    expect(JSON.parse(variations.text).result.replyChoices.length).toBeGreaterThan(0);
    const personified = await expectConforming(
      "post",
      "/api/v1/personify",
      json({ personaId: service.persona.id, raw: "The meeting moves to Thursday." }, key),
    );
    expect(personified.status).toBe(200);
    for (const body of [
      { model: service.persona.id, prompt: "Good morning!", n: 2, stop: ["?"], echo: true },
      {
        model: service.persona.id,
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      },
    ]) {
      expect(
        (await expectConforming("post", "/api/v1/completions", json(body, bearer))).status,
      ).toBe(200);
    }
  });

  it("validation errors: malformed JSON, invalid bodies, content type, size, method", async () => {
    const key = { "x-api-key": service.key };
    for (const path of ["/api/v1/generate", "/api/v1/personify", "/api/v1/completions"]) {
      expect((await expectConforming("post", path, json("{not json", key))).status).toBe(400);
      expect(
        (
          await expectConforming("post", path, {
            headers: { "content-type": "text/plain", ...key },
            body: "hi",
          })
        ).status,
      ).toBe(415);
      const big = JSON.stringify({
        raw: "x".repeat(service.services.config.PERSONA_BODY_LIMIT_BYTES),
      });
      expect((await expectConforming("post", path, json(big, key))).status).toBe(413);
      const wrongMethod = await receive(await fetch(`${service.url}${path}`, { method: "PUT" }));
      expect(wrongMethod.status).toBe(405);
      expect(checker.problems("post", path, wrongMethod)).toEqual([]);
    }
    expect(
      (await expectConforming("post", "/api/v1/generate", json({ personaId: "x" }, key))).status,
    ).toBe(422);
    expect(
      (await expectConforming("post", "/api/v1/personify", json({ raw: "" }, key))).status,
    ).toBe(400);
    const completion = await expectConforming(
      "post",
      "/api/v1/completions",
      json({ prompt: "hi" }, key),
    );
    expect(completion.status).toBe(400);
    expect(JSON.parse(completion.text).error).toMatchObject({
      type: "invalid_request_error",
      param: "model",
    });
    expect(
      (
        await expectConforming(
          "post",
          "/api/v1/completions",
          json({ model: service.persona.id, prompt: "a", stream: true }, key),
        )
      ).status,
    ).toBe(400);
  });

  it("401, 403 and 404 in each endpoint's format", async () => {
    for (const [path, body] of [
      ["/api/v1/generate", hello()],
      ["/api/v1/personify", { personaId: service.persona.id, raw: "Text." }],
      ["/api/v1/completions", { model: service.persona.id, prompt: "Hi" }],
    ] as const) {
      expect((await expectConforming("post", path, json(body))).status).toBe(401);
      expect(
        (await expectConforming("post", path, json(body, { "x-api-key": "prk_nope" }))).status,
      ).toBe(401);
      const unknown =
        "personaId" in body
          ? { ...body, personaId: "00000000-0000-4000-8000-000000000000" }
          : { ...body, model: "00000000-0000-4000-8000-000000000000" };
      expect(
        (await expectConforming("post", path, json(unknown, { "x-api-key": service.key }))).status,
      ).toBe(404);
    }
    const noAccess = await expectConforming(
      "post",
      "/api/v1/personify",
      json({ personaId: service.plainPersona.id, raw: "Text." }, { "x-api-key": service.key }),
    );
    expect(noAccess.status).toBe(403);
    const { services } = service;
    const account = await services.accounts.create("Suspended customer");
    const { key } = await services.keys.create(account.id, "suspended key");
    await services.accounts.setStatus(account.id, "suspended");
    for (const path of ["/api/v1/generate", "/api/v1/completions"]) {
      const body = path.endsWith("generate")
        ? hello()
        : { model: service.persona.id, prompt: "Hi" };
      expect((await expectConforming("post", path, json(body, { "x-api-key": key }))).status).toBe(
        403,
      );
    }
  });

  it("the models list and one model: 200, 401, 403, 404 as completions error objects", async () => {
    const key = { "x-api-key": service.key };
    const one = (id: string) => ({ url: `${service.url}/api/v1/models/${id}` });
    expect((await expectConforming("get", "/api/v1/models", { headers: key })).status).toBe(200);
    expect((await expectConforming("get", "/api/v1/models")).status).toBe(401);
    const model = "/api/v1/models/{id}";
    expect(
      (await expectConforming("get", model, { ...one(service.persona.id), headers: key })).status,
    ).toBe(200);
    expect((await expectConforming("get", model, one(service.persona.id))).status).toBe(401);
    const unknown = one("00000000-0000-4000-8000-000000000000");
    expect((await expectConforming("get", model, { ...unknown, headers: key })).status).toBe(404);
    const { services } = service;
    const account = await services.accounts.create("Suspended lister");
    const { key: suspended } = await services.keys.create(account.id, "suspended key");
    await services.accounts.setStatus(account.id, "suspended");
    const headers = { authorization: `Bearer ${suspended}` };
    expect((await expectConforming("get", "/api/v1/models", { headers })).status).toBe(403);
  });

  it("429s of the rate limit and of the balance, and the 402 payment challenge", async () => {
    const { services } = service;
    const limited = await services.accounts.create("Limited customer");
    await services.billing.balances.topUp(limited.id, 1_000_000);
    const persona = await services.personas.create(limited.id, {
      ...readExamplePersona(),
      personifyAccess: true,
    });
    const { record, key } = await services.keys.create(limited.id, "one a minute");
    await services.billing.limits.setForKey(record.id, { minute: 1 });
    const body = { personaId: persona.id, messages: [{ role: "user", content: "Hi" }] };
    expect(
      (await expectConforming("post", "/api/v1/generate", json(body, { "x-api-key": key }))).status,
    ).toBe(200);
    const refused = await expectConforming(
      "post",
      "/api/v1/generate",
      json(body, { "x-api-key": key }),
    );
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/u);
    const completions = await expectConforming(
      "post",
      "/api/v1/completions",
      json({ model: persona.id, prompt: "Hi" }, { "x-api-key": key }),
    );
    expect(JSON.parse(completions.text).error).toMatchObject({
      type: "rate_limit_error",
      code: null,
    });

    const broke = await services.accounts.create("Broke customer");
    const brokePersona = await services.personas.create(broke.id, {
      ...readExamplePersona(),
      personifyAccess: true,
    });
    const brokeKey = (await services.keys.create(broke.id, "no money")).key;
    for (const [path, request] of [
      [
        "/api/v1/generate",
        { personaId: brokePersona.id, messages: [{ role: "user", content: "Hi" }] },
      ],
      ["/api/v1/personify", { personaId: brokePersona.id, raw: "Text." }],
      ["/api/v1/completions", { model: brokePersona.id, prompt: "Hi" }],
    ] as const) {
      expect(
        (await expectConforming("post", path, json(request, { "x-api-key": brokeKey }))).status,
      ).toBe(429);
    }

    await services.personas.setSelfServe(service.persona.id, 10_000);
    try {
      for (const [path, request] of [
        ["/api/v1/generate", hello()],
        ["/api/v1/completions", { model: service.persona.id, prompt: "Hi" }],
      ] as const) {
        const challenge = await expectConforming("post", path, json(request));
        expect(challenge.status).toBe(402);
        expect(parsePaymentRequired(JSON.parse(challenge.text)).success).toBe(true);
      }
    } finally {
      await services.personas.setSelfServe(service.persona.id, null);
    }
  });

  it("502 and 504 from a failing model provider, as JSON and as the completions object", async () => {
    const key = { "x-api-key": service.key };
    for (const behaviour of [{ kind: "status", status: 500 }, { kind: "hang" }] as const) {
      upstream.behaviour = behaviour;
      const expected = behaviour.kind === "hang" ? 504 : 502;
      const body = { personaId: routed.id, messages: [{ role: "user", content: "Hi" }] };
      expect((await expectConforming("post", "/api/v1/generate", json(body, key))).status).toBe(
        expected,
      );
      expect(
        (
          await expectConforming(
            "post",
            "/api/v1/personify",
            json({ personaId: routed.id, raw: "Text." }, key),
          )
        ).status,
      ).toBe(expected);
      expect(
        (
          await expectConforming(
            "post",
            "/api/v1/completions",
            json({ model: routed.id, prompt: "Hi" }, key),
          )
        ).status,
      ).toBe(expected);
    }
    upstream.behaviour = { kind: "reply", text: "Hello from upstream." };
  });

  it("operational routes: /healthz, /metrics (loopback and token), the document itself", async () => {
    expect((await expectConforming("get", "/healthz")).status).toBe(200);
    expect((await expectConforming("get", "/metrics")).status).toBe(200);
    expect((await expectConforming("get", "/api/v1/openapi.json")).status).toBe(200);
    // The same services behind an app configured with a metrics token.
    const token = "metrics-token-for-the-openapi-test";
    const app = createApp({
      ...service.services,
      config: { ...service.services.config, PERSONA_METRICS_TOKEN: token },
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const refused = await expectConforming("get", "/metrics", { url: `${origin}/metrics` });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/u);
      const scraped = await expectConforming("get", "/metrics", {
        url: `${origin}/metrics`,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(scraped.status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("pages of the playground and the browser login route", async () => {
    expect((await expectConforming("get", "/")).status).toBe(200);
    expect((await expectConforming("get", "/favicon.ico")).status).toBe(200);
    expect((await expectConforming("get", "/sign-in")).status).toBe(200);
    expect((await expectConforming("get", "/keys")).status).toBe(303);
    expect((await expectConforming("get", "/playground")).status).toBe(303);
    expect((await expectConforming("get", "/sessions")).status).toBe(303);
    expect((await expectConforming("get", "/playground/assets/chat.js")).status).toBe(200);
    expect((await expectConforming("get", "/playground/assets/keys.js")).status).toBe(200);
    const verify = { url: `${service.url}/sign-in/verify?token=nope` };
    expect((await expectConforming("get", "/sign-in/verify", verify)).status).toBe(400);
    const form = {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "name=x",
    };
    expect((await expectConforming("post", "/keys", form)).status).toBe(403);
    expect((await expectConforming("post", "/sign-in", form)).status).toBe(403);
    expect((await expectConforming("post", "/sign-out", form)).status).toBe(403);
    const login = await expectConforming("get", "/api/persona/cli/login");
    expect(login.status).toBe(400);
    expect((await expectConforming("post", "/playground/api/generate", json(hello()))).status).toBe(
      403,
    );
  });

  it("reached the statuses it meant to", () => {
    expect([...(seen.get("post /api/v1/generate") ?? [])].sort()).toEqual(
      [200, 400, 401, 402, 403, 404, 413, 415, 422, 429, 502, 504].sort(),
    );
    expect([...(seen.get("post /api/v1/completions") ?? [])].sort()).toEqual(
      [200, 400, 401, 402, 403, 404, 413, 415, 429, 502, 504].sort(),
    );
  });
});
