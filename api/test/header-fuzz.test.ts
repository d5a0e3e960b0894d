import { generateKeyPairSync, randomUUID } from "node:crypto";
import { LOGIN_PATH } from "@persona-reply/shared";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyMutations,
  type BodyKind,
  describeMutations,
  expectedOutcome,
  headerMutations,
  type MutationOptions,
  type Outcome,
  parserMayRefuse,
} from "../../test-support/fuzz-headers.js";
import { fuzzSettings } from "../../test-support/fuzz-settings.js";
import { sendWire, type WireAnswer, type WireRequest } from "../../test-support/raw-http.js";
import { AllowedEmailStore } from "../src/playground/allowed-email-store.js";
import { SessionStore } from "../src/playground/session-store.js";
import { type ErrorFormat, expectErrorFormat } from "./support/error-format.js";
import { csrfIn, hiddenField, PageClient } from "./support/page-client.js";
import { startTestService, type TestService } from "./support/test-service.js";

/**
 * Property-based fuzzing of request headers on every route
 * family of the service: the API endpoints, the playground's fetch
 * endpoints, a page form and the browser login route. Each case is a
 * well-formed request of the family with up to three header mutations
 * (test-support/fuzz-headers.ts): no 5xx ever, every answer in the family's
 * format, the status a lone mutation leads to, and only 200s charged.
 * PERSONA_FUZZ_HEADER_RUNS raises the cases per family; PERSONA_FUZZ_SEED
 * and PERSONA_FUZZ_PATH replay one.
 */
const { runs: RUNS, parameters: FUZZ_PARAMETERS } = fuzzSettings("PERSONA_FUZZ_HEADER_RUNS", 250);
const FORM_LIMIT = 32 * 1024;

let service: TestService;
let otherKey: string;
/** The session's cookie header and CSRF token for the playground and the login route. */
let session: {
  cookie: string;
  playgroundCsrf: string;
  loginForm: Record<string, string>;
  loginQuery: string;
};
/** A visitor's cookie header and CSRF token for the sign-in form. */
let visitor: { cookie: string; csrf: string };
const charged = { count: 0 };
/** The route families, built once the service runs. */
let families: Family[];

const cookieHeader = (client: PageClient) =>
  [...client.cookies].map(([name, value]) => `${name}=${value}`).join("; ");

beforeAll(async () => {
  service = await startTestService();
  otherKey = (await service.services.keys.create(service.accountId, "second")).key;
  // A session counts while its address is allowed for its account.
  await new AllowedEmailStore(service.services.database).allow(
    "owner@example.com",
    service.accountId,
  );
  const { token } = await new SessionStore(service.services.database, 3_600_000).create({
    accountId: service.accountId,
    email: "owner@example.com",
    userAgent: "fuzz",
  });
  const signedIn = new PageClient(service.url);
  signedIn.cookies.set("persona_session", token);
  const playground = await signedIn.page("/playground");
  const recipient = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey;
  const query = new URLSearchParams({
    state: "fuzz-state-0123456789",
    redirect_uri: "http://127.0.0.1:53682/callback",
    recipient_public_key_jwk: Buffer.from(
      JSON.stringify(recipient.export({ format: "jwk" })),
    ).toString("base64url"),
  });
  const consent = await signedIn.page(`${LOGIN_PATH}?${query}`);
  const loginForm: Record<string, string> = { _csrf: consent.csrf, decision: "deny" };
  for (const name of ["state", "redirect_uri", "recipient_public_key_jwk"]) {
    loginForm[name] = hiddenField(consent.html, name) ?? "";
  }
  session = {
    cookie: cookieHeader(signedIn),
    playgroundCsrf: playground.csrf,
    loginForm,
    loginQuery: query.toString(),
  };
  const anonymous = new PageClient(service.url);
  const signInPage = await anonymous.page("/sign-in");
  visitor = { cookie: cookieHeader(anonymous), csrf: csrfIn(signInPage.html) };
  families = buildFamilies();
}, 60_000);
afterAll(() => service?.stop());

interface Family {
  name: string;
  kind: BodyKind;
  format: ErrorFormat;
  base: () => WireRequest;
  /** The statuses each outcome may end in. */
  statuses: Record<Exclude<Outcome, "any">, number[]>;
  options: MutationOptions;
  /** Whether a 200 is charged to the test account. */
  billed: boolean;
}

const json = (path: string, body: unknown, headers: Array<[string, string]>): WireRequest => ({
  method: "POST",
  path,
  headers: [["Content-Type", "application/json"], ...headers],
  body: Buffer.from(JSON.stringify(body)),
  framing: { kind: "exact" },
});

const form = (path: string, fields: Record<string, string>, cookie: string): WireRequest => ({
  method: "POST",
  path,
  headers: [
    ["Content-Type", "application/x-www-form-urlencoded"],
    ["Cookie", cookie],
  ],
  body: Buffer.from(new URLSearchParams(fields).toString()),
  framing: { kind: "exact" },
});

const hello = () => [{ role: "user", content: "Hello!" }];

/** A login `state` no consent has used yet (spec: 16+ URL-safe characters). */
const freshState = () => `fuzz-state-${randomUUID()}`;

const withState = (query: string, state: string): string => {
  const parameters = new URLSearchParams(query);
  parameters.set("state", state);
  return parameters.toString();
};

/** The statuses the API endpoints give (docs/API.md §7; api/README.md). */
const API_STATUSES = {
  success: [200],
  unsupported: [415],
  "wrong-media-type": [415],
  corrupt: [400],
  "too-large": [413],
  aborted: [400],
  "bad-key": [401],
  "parser-refusal": [400],
};

/** The families fuzzed, by name (the tests are declared before the service runs). */
const FAMILY_NAMES = [
  "POST /api/v1/generate",
  "POST /api/v1/personify",
  "POST /api/v1/completions",
  "POST /playground/api/generate",
  "POST /sign-in (a page form)",
  `POST ${LOGIN_PATH} (the login route's consent form)`,
  `GET ${LOGIN_PATH} (the consent page, with a body)`,
];

function buildFamilies(): Family[] {
  const apiOptions = (): MutationOptions => ({
    kind: "json",
    bodyLimit: service.services.config.PERSONA_BODY_LIMIT_BYTES,
    keys: { good: service.key, other: otherKey },
  });
  const pageStatuses = (success: number[]) => ({
    success,
    unsupported: [415],
    // The form is not read, so its CSRF token is missing.
    "wrong-media-type": [403],
    corrupt: [400],
    "too-large": [413],
    aborted: [400],
    "bad-key": success,
    "parser-refusal": [400],
  });
  return [
    {
      name: "POST /api/v1/generate",
      kind: "json",
      format: "native",
      base: () =>
        json("/api/v1/generate", { personaId: service.persona.id, messages: hello() }, [
          ["x-api-key", service.key],
        ]),
      statuses: API_STATUSES,
      options: apiOptions(),
      billed: true,
    },
    {
      name: "POST /api/v1/personify",
      kind: "json",
      format: "native",
      base: () =>
        json("/api/v1/personify", { personaId: service.persona.id, raw: "We meet at noon." }, [
          ["x-api-key", service.key],
        ]),
      statuses: API_STATUSES,
      options: apiOptions(),
      billed: true,
    },
    {
      name: "POST /api/v1/completions",
      kind: "json",
      format: "completions",
      base: () =>
        json("/api/v1/completions", { model: service.persona.id, prompt: "Good morning!" }, [
          ["Authorization", `Bearer ${service.key}`],
        ]),
      statuses: API_STATUSES,
      options: apiOptions(),
      billed: true,
    },
    {
      name: "POST /playground/api/generate",
      kind: "json",
      format: "json",
      base: () =>
        json("/playground/api/generate", { personaId: service.persona.id, messages: hello() }, [
          ["Cookie", session.cookie],
          ["x-csrf-token", session.playgroundCsrf],
        ]),
      statuses: {
        // The playground's own rate limit (25 a minute) answers 429 after a few.
        success: [200, 429],
        unsupported: [415],
        // A body that is not read as JSON fails validation.
        "wrong-media-type": [422],
        corrupt: [400],
        "too-large": [413],
        aborted: [400],
        "bad-key": [200, 429],
        "parser-refusal": [400],
      },
      options: { kind: "json", bodyLimit: service.services.config.PERSONA_BODY_LIMIT_BYTES },
      billed: true,
    },
    {
      name: "POST /sign-in (a page form)",
      kind: "form",
      format: "html",
      base: () =>
        form("/sign-in", { email: "fuzz@example.com", _csrf: visitor.csrf }, visitor.cookie),
      // Sign-in is rate limited per address and client: 429 after a few.
      statuses: pageStatuses([200, 429]),
      options: { kind: "form", bodyLimit: FORM_LIMIT },
      billed: false,
    },
    {
      name: `POST ${LOGIN_PATH} (the login route's consent form)`,
      kind: "form",
      format: "html",
      // A consent is used once: every case answers a consent of its own.
      base: () => form(LOGIN_PATH, { ...session.loginForm, state: freshState() }, session.cookie),
      statuses: pageStatuses([303]),
      options: { kind: "form", bodyLimit: FORM_LIMIT },
      billed: false,
    },
    {
      name: `GET ${LOGIN_PATH} (the consent page, with a body)`,
      kind: "form",
      format: "html",
      base: () => ({
        ...form(
          `${LOGIN_PATH}?${withState(session.loginQuery, freshState())}`,
          { name: "fuzz" },
          session.cookie,
        ),
        method: "GET",
      }),
      // A GET is not CSRF-checked: a body that is not a form is ignored.
      statuses: { ...pageStatuses([200]), "wrong-media-type": [200] },
      options: { kind: "form", bodyLimit: FORM_LIMIT },
      billed: false,
    },
  ];
}

/** Node's own plain-text refusal of a request its parser could not take (server.ts). */
const isParserRefusal = (answer: WireAnswer) =>
  answer.status === 400 && answer.text === "Bad Request\n";

describe(`property-based fuzzing of request headers on every route family (${RUNS} cases each)`, () => {
  for (const name of FAMILY_NAMES) {
    it(`${name}: no 5xx, its format, the status of each lone mutation`, async () => {
      const current = families.find((candidate) => candidate.name === name) as Family;
      expect(current, name).toBeDefined();
      await fc.assert(
        fc.asyncProperty(headerMutations(current.options), async (mutations) => {
          const request = applyMutations(current.base(), mutations);
          const answer = await sendWire(service.url, request, 10_000);
          const context = `${current.name} ${describeMutations(mutations)} → ${answer.status} ${answer.text.slice(0, 160)}`;
          expect(answer.timedOut, context).toBe(false);
          expect(answer.status, context).toBeGreaterThanOrEqual(200);
          expect(answer.status, context).toBeLessThan(500);
          const outcome = expectedOutcome(mutations);
          if (outcome !== "any")
            expect(current.statuses[outcome], context).toContain(answer.status);
          if (answer.status >= 400 && !(parserMayRefuse(mutations) && isParserRefusal(answer))) {
            expectErrorFormat(
              current.format,
              { ...answer, contentType: answer.headers["content-type"] ?? "" },
              context,
            );
          }
          if (answer.status === 200 && current.billed) charged.count += 1;
        }),
        FUZZ_PARAMETERS,
      );
    }, 240_000);
  }

  it("charged exactly the requests answered 200, and /healthz still answers", async () => {
    const { balances } = service.services.billing;
    const charges = (await balances.entries(service.accountId)).filter(
      (entry) => entry.kind === "charge",
    );
    expect(charges).toHaveLength(charged.count);
    expect(charged.count).toBeGreaterThan(RUNS / 10);
    const balance = await balances.balanceOf(service.accountId);
    expect(balance?.reservedMicros).toBe(0);
    const health = await fetch(`${service.url}/healthz`);
    expect(health.status).toBe(200);
  });
});
