import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { fuzzSettings } from "../../test-support/fuzz-settings.js";
import {
  edgeString,
  type FieldSpec,
  hugeStringText,
  messagesText,
  requestBodyText,
} from "../../test-support/fuzz-values.js";
import {
  type ApiFixture,
  EXAMPLE_PERSONA_FILE,
  startApi,
} from "../../test-support/spawn-service.js";
import {
  chatRequestSchema,
  personifyRequestSchema,
  quickstartRequestSchema,
} from "../server/schemas.js";
import type { RunningExampleServer } from "../server/server.js";
import { serviceEnvironment, startExample } from "./support/example-fixture.js";

/**
 * Cases per route; PERSONA_FUZZ_RUNS overrides it, PERSONA_FUZZ_SEED and
 * PERSONA_FUZZ_PATH (printed by fast-check on a failure) replay one.
 */
const { runs: RUNS, parameters: FUZZ_PARAMETERS } = fuzzSettings("PERSONA_FUZZ_RUNS", 1000);
const UNKNOWN_PERSONA = "00000000-0000-4000-8000-000000000000";

let api: ApiFixture;
let example: RunningExampleServer;
let plainPersonaId: string;
let balanceBefore: number;
let answered200 = 0;

interface AccountView {
  balanceMicros: number;
  reservedMicros: number;
  ledgerSumMicros: number;
}

beforeAll(async () => {
  api = await startApi();
  // A persona of the demo account without /personify access (the service answers 403).
  plainPersonaId = api.admin(
    "persona",
    "create",
    "--account",
    api.accountId,
    "--file",
    EXAMPLE_PERSONA_FILE,
  );
  api.admin("persona", "revoke-personify", plainPersonaId);
  // The demo key's 1000 requests a minute are fewer than this suite sends.
  const keys = JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
    id: string;
  }>;
  for (const { id } of keys) {
    api.admin(
      "limits",
      "set",
      "--key",
      id,
      "--minute",
      "1000000",
      "--hour",
      "1000000",
      "--day",
      "1000000",
    );
  }
  balanceBefore = (JSON.parse(api.admin("account", "show", api.accountId)) as AccountView)
    .balanceMicros;
  example = await startExample(serviceEnvironment(api));
});
afterAll(async () => {
  await example?.stop();
  await api?.stop();
});

type Route = "quickstart" | "chat" | "personify";

const personaIdText = () =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(JSON.stringify(api.personaId)) },
    { weight: 2, arbitrary: fc.constant(JSON.stringify(plainPersonaId)) },
    { weight: 1, arbitrary: fc.constant(JSON.stringify(UNKNOWN_PERSONA)) },
    { weight: 1, arbitrary: edgeString.map((text) => JSON.stringify(text)) },
  );

const text = fc.oneof(fc.lorem({ maxCount: 10 }), edgeString).map((value) => JSON.stringify(value));
const textBad = fc.oneof(hugeStringText, fc.constantFrom('""', '"  "', "[]", '["a"]'));

const FIELDS: Record<Route, () => FieldSpec[]> = {
  quickstart: () => [
    { name: "prompt", good: text, bad: textBad },
    { name: "personaId", good: personaIdText(), optional: true },
  ],
  chat: () => [
    { name: "messages", good: messagesText({ timestamps: false }) },
    { name: "personaId", good: personaIdText(), optional: true },
  ],
  personify: () => [
    { name: "raw", good: text, bad: textBad },
    { name: "personaId", good: personaIdText(), optional: true },
  ],
};

const SCHEMAS: Record<Route, z.ZodType> = {
  quickstart: quickstartRequestSchema,
  chat: chatRequestSchema,
  personify: personifyRequestSchema,
};

interface FuzzCase {
  body: string;
  contentType: string | undefined;
}

function caseArbitrary(route: Route): fc.Arbitrary<FuzzCase> {
  return fc.record({
    body: requestBodyText(FIELDS[route]()),
    contentType: fc.oneof(
      { weight: 12, arbitrary: fc.constant("application/json") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(undefined, "text/plain", "application/json; charset=utf-8"),
      },
    ),
  });
}

/**
 * What the route should answer (docs/API.md §4.6): a request its own schema
 * refuses — or that is not JSON at all — is a 400 `validation` error; a
 * valid one is served (200), unless the service refuses the persona: an
 * unknown one (404) or, on /api/personify, one without access (403), both
 * `provider` errors with the service's status.
 */
function expected(route: Route, fuzzCase: FuzzCase): { status: number; type?: string } {
  const json = fuzzCase.contentType?.split(";")[0]?.trim().toLowerCase() === "application/json";
  let parsed: unknown;
  try {
    parsed = json ? JSON.parse(fuzzCase.body.replace(/^\ufeff/u, "")) : undefined;
  } catch {
    return { status: 400, type: "validation" };
  }
  const result = SCHEMAS[route].safeParse(parsed);
  if (!result.success) return { status: 400, type: "validation" };
  const personaId = (result.data as { personaId?: string }).personaId ?? api.personaId;
  if (personaId !== api.personaId && personaId !== plainPersonaId)
    return { status: 404, type: "provider" };
  if (route === "personify" && personaId === plainPersonaId)
    return { status: 403, type: "provider" };
  return { status: 200 };
}

const SUCCESS_KEYS: Record<Route, string[]> = {
  quickstart: ["chunks", "model", "text"],
  chat: ["chunks", "model", "reply"],
  personify: ["chunks", "model", "personified"],
};

async function checkCase(route: Route, fuzzCase: FuzzCase): Promise<void> {
  const headers: Record<string, string> = {};
  if (fuzzCase.contentType !== undefined) headers["content-type"] = fuzzCase.contentType;
  const response = await fetch(`${example.url}/api/${route}`, {
    method: "POST",
    headers,
    body: fuzzCase.body,
  });
  const raw = await response.text();
  const context = `${route} ${response.status} ${raw.slice(0, 200)}`;
  expect(response.status, context).toBeLessThan(500);
  expect(response.headers.get("content-type"), context).toMatch(/^application\/json/u);
  const body = JSON.parse(raw) as Record<string, unknown>;
  const want = expected(route, fuzzCase);
  expect(response.status, context).toBe(want.status);
  if (response.status === 200) {
    answered200 += 1;
    expect(Object.keys(body).sort(), context).toEqual(SUCCESS_KEYS[route]);
    return;
  }
  // The shared error body of the example app's routes: { error: { type, message } }.
  expect(Object.keys(body), context).toEqual(["error"]);
  const error = body.error as { type: unknown; message: unknown };
  expect(Object.keys(error).sort(), context).toEqual(["message", "type"]);
  expect(error.type, context).toBe(want.type);
  expect(typeof error.message === "string" && error.message.length > 0, context).toBe(true);
}

describe(`property-based fuzzing of the example app's routes (${RUNS} cases each)`, () => {
  for (const route of ["quickstart", "chat", "personify"] as const) {
    it(`POST /api/${route}: no 5xx, a 400 validation error for every bad body, { error: { type, message } }`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArbitrary(route), (fuzzCase) => checkCase(route, fuzzCase)),
        FUZZ_PARAMETERS,
      );
      // Both the example server and the service still answer.
      expect((await fetch(`${example.url}/api/${route}`)).status).toBe(405);
      expect((await fetch(`${api.baseUrl}/healthz`)).status).toBe(200);
    }, 240_000);
  }

  it("the service charged only the requests the example app answered 200, and holds no reservation", () => {
    expect(answered200).toBeGreaterThan(RUNS / 10);
    const account = JSON.parse(api.admin("account", "show", api.accountId)) as AccountView;
    expect(account.reservedMicros).toBe(0);
    expect(account.ledgerSumMicros).toBe(account.balanceMicros);
    const usage = JSON.parse(api.admin("usage", "--account", api.accountId, "--json")) as Array<{
      served: number;
      costMicros: number;
    }>;
    expect(usage.reduce((sum, line) => sum + line.served, 0)).toBe(answered200);
    expect(balanceBefore - account.balanceMicros).toBe(
      usage.reduce((sum, line) => sum + line.costMicros, 0),
    );
  });
});
