import { completionErrorBodySchema, jsonErrorBodySchema } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Persona } from "../src/personas/persona.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import {
  type FakeUpstream,
  startFakeUpstream,
  type UpstreamBehaviour,
} from "./support/fake-upstream.js";
import { startTestService, type TestService } from "./support/test-service.js";

/** The provider deadline of this suite (PERSONA_PROVIDER_TIMEOUT_MS), covering every attempt. */
const TIMEOUT_MS = 1_500;
/**
 * A generous ceiling for "answered within the configured timeout": the
 * deadline plus room for a loaded CI machine. It proves the service never
 * waits on a broken upstream past its deadline; it measures nothing.
 */
const CEILING_MS = TIMEOUT_MS + 8_000;
const STARTING_BALANCE = 50_000_000;

let upstream: FakeUpstream;
let service: TestService;
let persona: Persona;
let accountId: string;
let key: string;
const requestIds: string[] = [];

beforeAll(async () => {
  upstream = await startFakeUpstream();
  service = await startTestService({
    PERSONA_OPENAI_BASE_URL: upstream.baseUrl,
    PERSONA_OPENAI_API_KEY: "upstream-secret",
    PERSONA_PROVIDER_TIMEOUT_MS: String(TIMEOUT_MS),
    PERSONA_PROVIDER_MAX_RETRIES: "1",
  });
  const { services } = service;
  const account = await services.accounts.create("Fault customer");
  accountId = account.id;
  await services.billing.balances.topUp(account.id, STARTING_BALANCE);
  persona = await services.personas.create(account.id, {
    ...readExamplePersona(),
    personifyAccess: true,
    route: [{ upstream: "openai-compatible", model: "fake-model" }],
  });
  key = (await services.keys.create(account.id, "fault key")).key;
});
afterAll(async () => {
  await service?.stop();
  await upstream?.close();
});

const ENDPOINTS = [
  [
    "/api/v1/generate",
    () => ({ personaId: persona.id, messages: [{ role: "user", content: "Hi" }] }),
  ],
  ["/api/v1/personify", () => ({ personaId: persona.id, raw: "The meeting moves to Thursday." })],
  ["/api/v1/completions", () => ({ model: persona.id, prompt: "Hi", n: 2 })],
] as const;

/**
 * Calls each endpoint with the upstream misbehaving and checks the answer:
 * the status, the endpoint's error format (JSON `{ error: { type, message } }`
 * on /generate and /personify, the completions error object on
 * /completions), a message that says what happened, the deadline, and that
 * no secret leaks.
 */
async function expectFault(
  behaviour: UpstreamBehaviour,
  expected: { status: 502 | 504; message: RegExp },
) {
  upstream.behaviour = behaviour;
  for (const [path, body] of ENDPOINTS) {
    const started = Date.now();
    const response = await service.post(path, body(), { headers: { "x-api-key": key } });
    const elapsed = Date.now() - started;
    const text = await response.text();
    expect(response.status, `${path} ${behaviour.kind}: ${text}`).toBe(expected.status);
    expect(response.headers.get("content-type"), path).toMatch(/^application\/json/u);
    expect(elapsed, `${path} answered after ${elapsed} ms`).toBeLessThan(CEILING_MS);
    expect(text).not.toContain("upstream-secret");
    requestIds.push(response.headers.get("x-request-id") ?? "");
    if (path === "/api/v1/completions") {
      const { error } = completionErrorBodySchema.parse(JSON.parse(text));
      expect(error).toMatchObject({ type: "server_error", param: null, code: null });
      expect(error.message).toMatch(expected.message);
    } else {
      const { error } = jsonErrorBodySchema.parse(JSON.parse(text));
      expect(error.type).toBe(expected.status === 504 ? "upstream_timeout" : "upstream_error");
      expect(error.message).toMatch(expected.message);
    }
  }
}

describe("upstream faults of the OpenAI-compatible provider, on all three endpoints", () => {
  it("an upstream that hangs: 504 within the deadline, and the upstream call is abandoned", async () => {
    const abandonedBefore = upstream.abandoned;
    await expectFault(
      { kind: "hang" },
      { status: 504, message: new RegExp(`within ${TIMEOUT_MS} ms`, "u") },
    );
    // The service closed its hung connections instead of leaving them open.
    await expect
      .poll(() => upstream.abandoned - abandonedBefore, { timeout: 5_000 })
      .toBeGreaterThanOrEqual(3);
  });

  it("an upstream that resets the connection: 502 (after the configured retry)", async () => {
    const before = upstream.requests.length;
    await expectFault({ kind: "reset" }, { status: 502, message: /could not reach the upstream/u });
    // The configured retry was made: /generate and /personify 2 attempts each, /completions ≥ 2.
    expect(upstream.requests.length - before).toBeGreaterThanOrEqual(6);
  });

  it("an upstream that answers malformed JSON: 502", async () => {
    await expectFault({ kind: "malformed" }, { status: 502, message: /could not be read/u });
  });

  it("an upstream that answers 429 with Retry-After: 502 naming the rate limit, or 504 when the wait outlasts the deadline", async () => {
    await expectFault(
      { kind: "status", status: 429, headers: { "Retry-After": "0" } },
      { status: 502, message: /rate limited \(429; it asks to retry after 0 s\)/u },
    );
    const before = upstream.requests.length;
    await expectFault(
      { kind: "status", status: 429, headers: { "Retry-After": "30" } },
      { status: 504, message: /did not answer within/u },
    );
    // Honouring a 30 s Retry-After would outlast the deadline: no second attempt was made.
    expect(upstream.requests.length - before).toBe(4);
  });

  it("an upstream that returns an empty completion: 502, whatever its shape", async () => {
    for (const shape of ["blank-text", "no-choices", "null-content"] as const) {
      await expectFault(
        { kind: "empty", shape },
        { status: 502, message: /empty completion|no message content/u },
      );
    }
  });

  it("charged nothing for any of them and left no reservation", async () => {
    const { balances } = service.services.billing;
    const { usage } = service.services;
    const balance = await balances.balanceOf(accountId);
    expect(balance).toMatchObject({ balanceMicros: STARTING_BALANCE, reservedMicros: 0 });
    expect(await balances.ledgerSum(accountId)).toBe(STARTING_BALANCE);
    expect(await balances.openReservations(accountId)).toBe(0);
    const entries = await balances.entries(accountId);
    expect(entries.filter((entry) => entry.kind === "charge")).toEqual([]);
    const rows = await usage.findByRequestIds(requestIds);
    expect(rows).toHaveLength(requestIds.length);
    for (const row of rows) {
      expect([502, 504]).toContain(row.status);
      expect(row.costMicros).toBe(0);
    }
    // The upstream works again: the same customer is served and charged.
    upstream.behaviour = { kind: "reply", text: "Back to normal." };
    const served = await service.post("/api/v1/generate", ENDPOINTS[0][1](), {
      headers: { "x-api-key": key },
    });
    expect(served.status).toBe(200);
    expect((await balances.balanceOf(accountId))?.balanceMicros).toBeLessThan(STARTING_BALANCE);
    expect(await balances.openReservations(accountId)).toBe(0);
  });
});
