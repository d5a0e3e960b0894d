import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/config.js";
import { createServices } from "../src/create-services.js";
import { createLogger } from "../src/logging/logger.js";
import type { Persona } from "../src/personas/persona.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { type RunningServer, startServer } from "../src/server.js";
import type { Services } from "../src/services.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { describeEachDialect } from "./support/test-databases.js";

/** Log lines the service wrote, parsed (pino writes one JSON object per line). */
const lines: Array<Record<string, unknown>> = [];
const destination = {
  write(chunk: string) {
    for (const line of chunk.split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line));
  },
};

let directory: string;
let upstream: FakeUpstream;
let services: Services;
let server: RunningServer;
let persona: Persona;
let routed: Persona;
let key: string;
let limitedKey: string;
let accountId: string;

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-metrics-"));
  upstream = await startFakeUpstream();
  const config = loadConfig({
    PERSONA_PORT: "0",
    PERSONA_DATABASE_URL: path.join(directory, "store.sqlite"),
    PERSONA_ENV_FILE: path.join(directory, ".env"),
    PERSONA_SEED_DEMO: "false",
    PERSONA_LOG_LEVEL: "info",
    PERSONA_OPENAI_BASE_URL: upstream.baseUrl,
    PERSONA_PROVIDER_MAX_RETRIES: "0",
    PERSONA_PROVIDER_TIMEOUT_MS: "2000",
  });
  services = await createServices(config, createLogger("info", destination));
  server = await startServer(services);
  const account = await services.accounts.create("Metrics customer");
  accountId = account.id;
  await services.billing.balances.topUp(account.id, 10_000_000);
  persona = await services.personas.create(account.id, {
    ...readExamplePersona(),
    personifyAccess: true,
  });
  routed = await services.personas.create(account.id, {
    ...readExamplePersona(),
    personifyAccess: false,
    route: [{ upstream: "openai-compatible", model: "fake-model" }],
  });
  key = (await services.keys.create(account.id, "metrics key")).key;
  const limited = await services.keys.create(account.id, "one a minute");
  limitedKey = limited.key;
  await services.billing.limits.setForKey(limited.record.id, { minute: 1 });
});
afterAll(async () => {
  await server?.stop();
  await upstream?.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

function post(pathname: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${pathname}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, ...headers },
    body: JSON.stringify(body),
  });
}

/** The value of one sample of the Prometheus text, or 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = /\{(.*)\}/u.exec(line)?.[1] ?? "";
    const found = Object.fromEntries(
      [...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/gu)].map((match) => [match[1], match[2]]),
    );
    if (Object.entries(labels).every(([label, value]) => found[label] === value)) {
      return Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return 0;
}

describe("request IDs (x-request-id) in every response and every log line", () => {
  it("answers every response with an x-request-id and puts it on every line logged for it", async () => {
    upstream.behaviour = { kind: "status", status: 500 };
    const failing = await post("/api/v1/generate", {
      personaId: routed.id,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(failing.status).toBe(502);
    const id = failing.headers.get("x-request-id") ?? "";
    expect(id).toMatch(/^[0-9a-f-]{36}$/u);
    const logged = lines.filter((line) => line.requestId === id);
    // The error handler's line (written through the process-wide logger) and the request's own line.
    expect(logged.map((line) => line.msg)).toEqual(
      expect.arrayContaining(["request failed", "request errored"]),
    );
    upstream.behaviour = { kind: "reply", text: "Hello from upstream." };

    const mine = await fetch(`${server.url}/no/such/route`, {
      headers: { "x-request-id": "trace-42" },
    });
    expect(mine.status).toBe(404);
    expect(mine.headers.get("x-request-id")).toBe("trace-42");
    const invalid = await fetch(`${server.url}/healthz`, {
      headers: { "x-request-id": "not a valid id" },
    });
    expect(invalid.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/u);
  });

  it("gives every request log line the ID its response carried", async () => {
    const ids: string[] = [];
    for (const [pathname, body] of [
      ["/api/v1/generate", { personaId: persona.id, messages: [{ role: "user", content: "Hi" }] }],
      ["/api/v1/personify", { personaId: persona.id, raw: "Text to rewrite." }],
      ["/api/v1/completions", { model: persona.id, prompt: "Hi" }],
      ["/api/v1/generate", { personaId: "nope" }],
    ] as const) {
      const response = await post(pathname, body);
      ids.push(response.headers.get("x-request-id") ?? "");
    }
    for (const id of ids) {
      const logged = lines.filter((line) => (line.req as { id?: string } | undefined)?.id === id);
      expect(logged, id).toHaveLength(1);
      expect(logged[0]?.requestId).toBe(id);
    }
    // No line about a request is without its ID.
    for (const line of lines.filter((entry) => entry.req !== undefined)) {
      expect(line.requestId, JSON.stringify(line)).toBe((line.req as { id: string }).id);
    }
  });

  it("answers requests the HTTP parser refuses with an ID too, and logs it", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, "127.0.0.1", () => {
        socket.write("THIS IS NOT HTTP\r\n\r\n");
      });
      let received = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        received += chunk;
      });
      socket.on("close", () => resolve(received));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/u);
    const id = /x-request-id: (\S+)/iu.exec(answer)?.[1];
    expect(id).toMatch(/^[0-9a-f-]{36}$/u);
    expect(lines.some((line) => line.requestId === id && line.status === 400)).toBe(true);
  });
});

describe("GET /metrics (Prometheus)", () => {
  it("counts requests by route and status, latency, rejections, provider calls and charges", async () => {
    const before = await (await fetch(`${server.url}/metrics`)).text();
    const hello = { personaId: persona.id, messages: [{ role: "user", content: "Hi" }] };
    for (let index = 0; index < 3; index++)
      expect((await post("/api/v1/generate", hello)).status).toBe(200);
    expect((await post("/api/v1/generate", hello, { "x-api-key": limitedKey })).status).toBe(200);
    expect((await post("/api/v1/generate", hello, { "x-api-key": limitedKey })).status).toBe(429);
    expect((await post("/api/v1/generate", hello, { "x-api-key": "prk_wrong" })).status).toBe(401);
    await fetch(`${server.url}/keys/123/revoke`, { method: "POST" });
    await fetch(`${server.url}/definitely/not/here`);

    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/u);
    const text = await response.text();
    const delta = (name: string, labels: Record<string, string>) =>
      sample(text, name, labels) - sample(before, name, labels);
    const generate = { route: "/api/v1/generate", method: "POST" };
    expect(delta("persona_http_requests_total", { ...generate, status: "200" })).toBe(4);
    expect(delta("persona_http_requests_total", { ...generate, status: "429" })).toBe(1);
    expect(delta("persona_http_requests_total", { ...generate, status: "401" })).toBe(1);
    expect(
      delta("persona_http_request_duration_seconds_count", { ...generate, status: "200" }),
    ).toBe(4);
    expect(
      delta("persona_http_requests_total", { route: "/keys/:id/revoke", method: "POST" }),
    ).toBe(1);
    expect(delta("persona_http_requests_total", { route: "unmatched", status: "404" })).toBe(1);
    expect(delta("persona_rate_limit_rejections_total", { route: "/api/v1/generate" })).toBe(1);
    expect(
      delta("persona_provider_request_duration_seconds_count", {
        provider: "offline",
        outcome: "ok",
      }),
    ).toBe(4);
    expect(
      delta("persona_charges_total", { endpoint: "generate", payment_method: "balance" }),
    ).toBe(4);
    // Every micro-unit the counter saw is in the ledger's charges.
    const charged = (await services.billing.balances.entries(accountId))
      .filter((entry) => entry.kind === "charge")
      .reduce((sum, entry) => sum - entry.amountMicros, 0);
    expect(
      sample(text, "persona_charged_micros_total", { endpoint: "generate" }) +
        sample(text, "persona_charged_micros_total", { endpoint: "personify" }) +
        sample(text, "persona_charged_micros_total", { endpoint: "completions" }),
    ).toBe(charged);
    expect(
      sample(text, "persona_provider_errors_total", {
        provider: "openai-compatible",
        kind: "upstream",
      }),
    ).toBe(1);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/mu);
    // Label values are route templates, never what a client sent.
    expect(text).not.toContain("definitely");
  });

  it("counts a balance refusal and a provider timeout", async () => {
    const broke = await services.accounts.create("Broke");
    const brokePersona = await services.personas.create(broke.id, readExamplePersona());
    const brokeKey = (await services.keys.create(broke.id, "broke key")).key;
    const refused = await post(
      "/api/v1/completions",
      { model: brokePersona.id, prompt: "Hi" },
      { "x-api-key": brokeKey },
    );
    expect(refused.status).toBe(429);
    upstream.behaviour = { kind: "hang" };
    const timedOut = await post("/api/v1/personify", { personaId: routed.id, raw: "Text." });
    expect(timedOut.status).toBe(403);
    await services.personas.setPersonifyAccess(routed.id, true);
    expect((await post("/api/v1/personify", { personaId: routed.id, raw: "Text." })).status).toBe(
      504,
    );
    upstream.behaviour = { kind: "reply", text: "Hello from upstream." };
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(text, "persona_balance_rejections_total", { route: "/api/v1/completions" })).toBe(
      1,
    );
    expect(
      sample(text, "persona_provider_errors_total", {
        provider: "openai-compatible",
        kind: "timeout",
      }),
    ).toBe(1);
  });
});

await describeEachDialect("persona_storage_statements_total", (database) => {
  let own: Services;
  let ownServer: RunningServer;
  let ownPersona: Persona;
  let ownKey: string;
  beforeAll(async () => {
    const config = loadConfig({
      PERSONA_PORT: "0",
      PERSONA_DATABASE_URL: database.url,
      PERSONA_ENV_FILE: path.join(directory, `${database.dialect}.env`),
      PERSONA_SEED_DEMO: "false",
      PERSONA_LOG_LEVEL: "silent",
    });
    own = await createServices(config, createLogger("silent"));
    ownServer = await startServer(own);
    const account = await own.accounts.create("Statements customer");
    await own.billing.balances.topUp(account.id, 10_000_000);
    ownPersona = await own.personas.create(account.id, readExamplePersona());
    ownKey = (await own.keys.create(account.id, "statements key")).key;
  });
  afterAll(async () => {
    await ownServer?.stop();
  });

  it("grows with every /generate by the statements its admission and settlement ran", async () => {
    const scrape = async () =>
      sample(
        await (await fetch(`${ownServer.url}/metrics`)).text(),
        "persona_storage_statements_total",
        {
          dialect: database.dialect,
        },
      );
    const hello = { personaId: ownPersona.id, messages: [{ role: "user", content: "Hi" }] };
    const generate = () =>
      fetch(`${ownServer.url}/api/v1/generate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": ownKey },
        body: JSON.stringify(hello),
      });
    // The first request fills the caches (key, account, persona, limits).
    expect((await generate()).status).toBe(200);
    const before = await scrape();
    expect(before).toBeGreaterThan(0);
    const requests = 5;
    for (let index = 0; index < requests; index++) expect((await generate()).status).toBe(200);
    const perRequest = ((await scrape()) - before) / requests;
    // At least an admission and a settlement each; a few statements, not dozens.
    expect(perRequest).toBeGreaterThanOrEqual(2);
    expect(perRequest).toBeLessThan(40);
  });

  it("times every admission and settlement in persona_storage_write_duration_seconds", async () => {
    const read = async () => {
      const text = await (await fetch(`${ownServer.url}/metrics`)).text();
      const of = (name: string, operation: string) =>
        sample(text, name, { operation, outcome: "ok" });
      return {
        admits: of("persona_storage_write_duration_seconds_count", "admit"),
        settles: of("persona_storage_write_duration_seconds_count", "settle"),
        settleSeconds: of("persona_storage_write_duration_seconds_sum", "settle"),
        // A settlement is never faster than 0 and always within the store's timeout (10 s bucket).
        settlesWithin10s: sample(text, "persona_storage_write_duration_seconds_bucket", {
          operation: "settle",
          outcome: "ok",
          le: "10",
        }),
      };
    };
    const before = await read();
    const requests = 3;
    for (let index = 0; index < requests; index++) {
      const response = await fetch(`${ownServer.url}/api/v1/generate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": ownKey },
        body: JSON.stringify({
          personaId: ownPersona.id,
          messages: [{ role: "user", content: "Hi" }],
        }),
      });
      expect(response.status).toBe(200);
    }
    const after = await read();
    expect(after.admits - before.admits).toBe(requests);
    expect(after.settles - before.settles).toBe(requests);
    expect(after.settlesWithin10s - before.settlesWithin10s).toBe(requests);
    expect(after.settleSeconds).toBeGreaterThan(before.settleSeconds);
  });
});
