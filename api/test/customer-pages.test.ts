import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { freshLoginState, loginPath, signedInClient } from "./support/login-consent.js";
import type { PageClient } from "./support/page-client.js";
import { startTestService, type TestService } from "./support/test-service.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

// What a signed-in customer reads, over plain HTTP: every page, the
// playground's answers and the API's headers. The customer never picks or
// sees a model (docs/API.md §1.5): no upstream or model name, no operator note, no
// configuration variable and no citation of the specification reaches them;
// the persona's name, version and release note do. The operator keeps the
// targets (persona-admin, logs, metrics, traces).

const UPSTREAM = "zircon-gateway";
const MODEL = "zircon-chat-7";
const OPERATOR_NOTE = "moved to the cheaper zircon target";
const RELEASE_NOTE = "Warmer greetings & shorter replies.";

/** What must never reach a customer, with the reason a failure names. */
const FORBIDDEN: ReadonlyArray<[RegExp, string]> = [
  [new RegExp(UPSTREAM, "u"), "an upstream name"],
  [new RegExp(MODEL, "u"), "a model name"],
  // The development engine's own upstream and model.
  [/offline[-:]composer|offline:/u, "the development engine's target"],
  [/cheaper zircon/u, "the operator's note"],
  [/PERSONA_[A-Z]/u, "a configuration variable"],
  [/spec(ification)? §|§\s*\d/iu, "a citation of the specification"],
  [
    /README|Connecting a model|Answered by|Last answer/u,
    "operator documentation or a target label",
  ],
];

/** The forbidden things found in a text, as "reason: match". */
function leaks(text: string): string[] {
  return FORBIDDEN.flatMap(([pattern, reason]) => {
    const match = pattern.exec(text);
    return match === null ? [] : [`${reason}: ${match[0]}`];
  });
}

/** A response's headers as `name: value` lines. */
function headerLines(response: Response): string {
  return [...response.headers].map(([name, value]) => `${name}: ${value}`).join("\n");
}

let upstream: FakeUpstream;
let upstreams: ReturnType<typeof writeUpstreamsFile>;
let service: TestService;
let client: PageClient;
let consentPath: string;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstreams = writeUpstreamsFile({
    [UPSTREAM]: {
      kind: "openai-compatible",
      baseUrl: upstream.baseUrl,
      timeoutMs: 5_000,
      maxRetries: 0,
      price: { requestMicros: 10 },
    },
  });
  service = await startTestService({ PERSONA_UPSTREAMS_FILE: upstreams.file });
  // The persona with /personify access moves to the operator's model, with an
  // internal note and a release note; the other stays on the development engine.
  await service.services.personas.setRoute(
    service.persona.id,
    [{ upstream: UPSTREAM, model: MODEL }],
    { note: OPERATOR_NOTE, releaseNote: RELEASE_NOTE },
  );
  const generated = await service.post("/api/v1/generate", {
    personaId: service.persona.id,
    messages: [{ role: "user", content: "Hello!" }],
  });
  expect(generated.status).toBe(200);
  expect(leaks(headerLines(generated))).toEqual([]);
  await generated.arrayBuffer();
  client = await signedInClient(service);
  const recipient = await generateKeyPair("RSA-OAEP-256", { modulusLength: 2048 });
  consentPath = loginPath({
    state: freshLoginState(),
    redirect_uri: "http://127.0.0.1:53682/callback",
    recipient_public_key_jwk: Buffer.from(
      JSON.stringify(await exportJWK(recipient.publicKey)),
    ).toString("base64url"),
    name: "laptop",
    source: "cli",
  });
});
afterAll(async () => {
  await service?.stop();
  await upstream?.close();
  upstreams?.remove();
});

describe("what a signed-in customer reads", () => {
  it("names no upstream, model, operator note, variable or spec section on any page", async () => {
    const found: string[] = [];
    for (const path of [
      "/",
      "/apply",
      "/account",
      "/docs",
      "/api/v1/openapi.json",
      "/playground",
      "/playground/assets/chat.js",
      "/keys",
      "/sessions",
      "/usage",
      "/usage?by=version",
      "/usage.csv",
      consentPath,
    ]) {
      const response = await client.request(path);
      const text = await response.text();
      expect(response.status, path).toBe(200);
      for (const leak of leaks(`${headerLines(response)}\n${text}`)) found.push(`${path}: ${leak}`);
      // Nothing talks about upstreams at all, but for the error codes of
      // the contract (`upstream_error`, `upstream_timeout`).
      if (/upstream(?!_error|_timeout)/iu.test(text)) found.push(`${path}: the word upstream`);
    }
    expect(found).toEqual([]);
  });

  it("shows the persona's name, version and release note where its version is shown", async () => {
    const usage = (await client.page("/usage")).html;
    expect(usage).toContain(service.persona.name);
    expect(usage).toMatch(/data-label="Live version">2<\/td>/u);
    expect(usage).toContain("Warmer greetings &amp; shorter replies.");
    const playground = (await client.page("/playground")).html;
    expect(playground).toContain(
      '<p id="persona-version" class="answered-by" aria-live="polite">Version 2: Warmer greetings &amp; shorter replies.</p>',
    );
    // The development-engine notice shows for the persona on it, without naming it.
    expect(playground).toMatch(/data-development="true" data-version="1"/u);
    expect(playground).toMatch(/id="engine-notice" class="notice engine-notice" hidden>/u);
  });

  it("answers the playground with the persona version, never the target", async () => {
    const { csrf } = await client.page("/playground");
    const call = async (path: string, body: unknown) => {
      const response = await client.request(path, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      expect(response.status, `${path}: ${text}`).toBe(200);
      expect(leaks(`${headerLines(response)}\n${text}`), path).toEqual([]);
      expect(text).not.toMatch(/"(target|upstream|model)"/u);
      return { response, body: JSON.parse(text) as Record<string, unknown> };
    };
    const routed = await call("/playground/api/generate", {
      personaId: service.persona.id,
      messages: [{ role: "user", content: "Hello!" }],
    });
    expect(routed.body.answeredBy).toEqual({ personaVersion: 2, development: false });
    expect(routed.response.headers.get("persona-version")).toBe("2");
    // The operator's upstream did answer it.
    expect(upstream.requests.at(-1)?.model).toBe(MODEL);

    const personified = await call("/playground/api/personify", {
      personaId: service.persona.id,
      raw: "The shed is locked on Sundays.",
    });
    expect(personified.body.answeredBy).toEqual({ personaVersion: 2, development: false });

    const development = await call("/playground/api/generate", {
      personaId: service.plainPersona.id,
      messages: [{ role: "user", content: "Hello!" }],
    });
    expect(development.body.answeredBy).toEqual({ personaVersion: 1, development: true });
  });
});
