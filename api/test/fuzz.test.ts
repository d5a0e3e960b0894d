import {
  completionErrorBodySchema,
  completionRequestSchema,
  generateRequestSchema,
  personifyRequestSchema,
} from "@persona-reply/shared";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { fuzzSettings } from "../../test-support/fuzz-settings.js";
import {
  edgeNumberText,
  edgeString,
  type FieldSpec,
  hostileValueText,
  hugeStringText,
  messagesText,
  requestBodyText,
} from "../../test-support/fuzz-values.js";
import type { OpenApiDocument } from "../src/openapi/openapi-document.js";
import { OpenApiResponseChecker, receive } from "./support/openapi-check.js";
import { startTestService, type TestService } from "./support/test-service.js";

/**
 * Cases per endpoint. The default keeps the suite near a minute on a
 * loaded 2-core machine; PERSONA_FUZZ_RUNS raises it for a longer hunt, and
 * PERSONA_FUZZ_SEED (with PERSONA_FUZZ_PATH, both printed by fast-check on
 * a failure) replays one.
 */
const { runs: RUNS, parameters: FUZZ_PARAMETERS } = fuzzSettings("PERSONA_FUZZ_RUNS", 1500);

let service: TestService;
let checker: OpenApiResponseChecker;
const UNKNOWN_PERSONA = "00000000-0000-4000-8000-000000000000";
/** Every response of the suite by status, for the ledger check at the end. */
const served = { ok: 0, rejected: 0 };
const requestIds: string[] = [];

beforeAll(async () => {
  service = await startTestService();
  const response = await fetch(`${service.url}/api/v1/openapi.json`);
  checker = new OpenApiResponseChecker((await response.json()) as OpenApiDocument);
});
afterAll(async () => {
  await service?.stop();
});

type Endpoint = "generate" | "personify" | "completions";

/** How a case is sent: body text, content type and key header. */
interface FuzzCase {
  body: string;
  contentType: string | undefined;
  auth: "x-api-key" | "bearer" | "none" | "garbage";
}

const personaIdText = () =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(JSON.stringify(service.persona.id)) },
    { weight: 2, arbitrary: fc.constant(JSON.stringify(service.plainPersona.id)) },
    { weight: 1, arbitrary: fc.constant(JSON.stringify(UNKNOWN_PERSONA)) },
    { weight: 1, arbitrary: fc.uuid().map((id) => JSON.stringify(id)) },
    { weight: 1, arbitrary: edgeString.map((text) => JSON.stringify(text)) },
  );

const FIELDS: Record<Endpoint, () => FieldSpec[]> = {
  generate: () => [
    { name: "personaId", good: personaIdText() },
    { name: "messages", good: messagesText({ timestamps: true }) },
    {
      name: "includeVariations",
      good: fc.constantFrom("true", "false"),
      bad: fc.constantFrom("0", "1", '"true"'),
    },
  ],
  personify: () => [
    { name: "personaId", good: personaIdText() },
    {
      name: "raw",
      good: fc.oneof(fc.lorem({ maxCount: 12 }), edgeString).map((text) => JSON.stringify(text)),
      bad: fc.oneof(hugeStringText, fc.constantFrom('""', '"   "', '"\\u200b"')),
    },
  ],
  completions: () => [
    { name: "model", good: personaIdText() },
    ...COMPLETION_OPTIONS,
    // Exactly one of prompt and messages (docs/API.md §4.3 rule 1) is usually sent; both or neither now and then.
    { name: "prompt", good: PROMPT, bad: PROMPT_BAD, optional: true },
    { name: "messages", good: messagesText({ timestamps: false }), optional: true },
  ],
};

const PROMPT = fc.oneof(
  fc.oneof(fc.lorem({ maxCount: 8 }), edgeString).map((text) => JSON.stringify(text)),
  fc.lorem({ maxCount: 4 }).map((text) => JSON.stringify([text])),
);
const PROMPT_BAD = fc.oneof(hugeStringText, fc.constantFrom('["a","b"]', "[]", '""', "[1]"));

/** The optional parameters of /completions, each absent most of the time. */
const COMPLETION_OPTIONS: FieldSpec[] = [
  { name: "n", good: fc.constantFrom("1", "2", "5", "null"), bad: edgeNumberText, optional: true },
  { name: "echo", good: fc.constantFrom("true", "false", "null"), optional: true },
  {
    name: "stop",
    good: fc.oneof(
      fc.oneof(fc.lorem({ maxCount: 1 }), edgeString).map((text) => JSON.stringify(text)),
      fc.array(edgeString, { maxLength: 4 }).map((texts) => JSON.stringify(texts)),
    ),
    optional: true,
  },
  {
    name: "stream",
    good: fc.constantFrom("false", "null"),
    bad: fc.constantFrom("true", '"yes"', "1"),
    optional: true,
  },
  { name: "max_tokens", good: fc.constant("null"), bad: edgeNumberText, optional: true },
  {
    name: "logprobs",
    good: fc.constantFrom("false", "null"),
    bad: fc.constantFrom("true", "5"),
    optional: true,
  },
  { name: "temperature", good: edgeNumberText, optional: true },
  { name: "user", good: edgeString.map((text) => JSON.stringify(text)), optional: true },
  { name: "tools", good: fc.constant("null"), bad: hostileValueText, optional: true },
];

/** Makes the named field not optional. */
const required =
  (name: string) =>
  (field: FieldSpec): FieldSpec =>
    field.name === name ? { ...field, optional: false } : field;

function caseArbitrary(endpoint: Endpoint): fc.Arbitrary<FuzzCase> {
  // A body over the size limit now and then (413), whatever it holds.
  const oversize = fc.constant(
    JSON.stringify({ raw: "x".repeat(service.services.config.PERSONA_BODY_LIMIT_BYTES) }),
  );
  const fields = FIELDS[endpoint]();
  const bodies =
    endpoint === "completions"
      ? fc.oneof(
          // prompt only, messages only, or anything (both, neither).
          {
            weight: 3,
            arbitrary: requestBodyText(
              fields.filter((field) => field.name !== "messages").map(required("prompt")),
            ),
          },
          {
            weight: 3,
            arbitrary: requestBodyText(
              fields.filter((field) => field.name !== "prompt").map(required("messages")),
            ),
          },
          { weight: 1, arbitrary: requestBodyText(fields) },
        )
      : requestBodyText(fields);
  return fc.record({
    body: fc.oneof({ weight: 60, arbitrary: bodies }, { weight: 1, arbitrary: oversize }),
    contentType: fc.oneof(
      { weight: 18, arbitrary: fc.constant("application/json") },
      {
        weight: 2,
        arbitrary: fc.constantFrom("application/json; charset=utf-8", "Application/JSON"),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(undefined, "text/plain", "application/x-www-form-urlencoded"),
      },
    ),
    auth: fc.oneof(
      { weight: 16, arbitrary: fc.constant("x-api-key" as const) },
      { weight: 2, arbitrary: fc.constant("bearer" as const) },
      { weight: 1, arbitrary: fc.constantFrom("none" as const, "garbage" as const) },
    ),
  });
}

const SCHEMAS: Record<Endpoint, z.ZodType> = {
  generate: generateRequestSchema,
  personify: personifyRequestSchema,
  completions: completionRequestSchema,
};

/**
 * The status the spec (and the service's documented order of checks) gives
 * a case: content type (415), size (413), JSON (400), body — validated with
 * the same zod contract — (422 on /generate, 400 elsewhere), key (401),
 * persona (404), /personify access (403), else 200.
 */
function expectedStatus(endpoint: Endpoint, fuzzCase: FuzzCase): number {
  const mediaType = fuzzCase.contentType?.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json") return 415;
  if (Buffer.byteLength(fuzzCase.body) > service.services.config.PERSONA_BODY_LIMIT_BYTES)
    return 413;
  // body-parser drops a byte order mark and reads an empty body as {}.
  const text = fuzzCase.body.replace(/^\ufeff/u, "");
  let parsed: unknown;
  try {
    parsed = text === "" ? {} : JSON.parse(text);
  } catch {
    return 400;
  }
  const isObject = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  const result = isObject ? SCHEMAS[endpoint].safeParse(parsed) : undefined;
  if (result?.success !== true) return endpoint === "generate" ? 422 : 400;
  if (fuzzCase.auth === "none" || fuzzCase.auth === "garbage") return 401;
  const body = result.data as { personaId?: string; model?: string };
  const personaId = body.personaId ?? body.model;
  if (personaId !== service.persona.id && personaId !== service.plainPersona.id) return 404;
  if (endpoint === "personify" && personaId === service.plainPersona.id) return 403;
  return 200;
}

async function send(endpoint: Endpoint, fuzzCase: FuzzCase) {
  const headers: Record<string, string> = {};
  if (fuzzCase.contentType !== undefined) headers["content-type"] = fuzzCase.contentType;
  if (fuzzCase.auth === "x-api-key") headers["x-api-key"] = service.key;
  if (fuzzCase.auth === "bearer") headers.authorization = `Bearer ${service.key}`;
  if (fuzzCase.auth === "garbage") headers["x-api-key"] = "prk_notakeyatall";
  const response = await fetch(`${service.url}/api/v1/${endpoint}`, {
    method: "POST",
    headers,
    body: fuzzCase.body,
  });
  return receive(response);
}

/** Checks one answer: the expected status, the endpoint's error format, the document. */
async function checkCase(endpoint: Endpoint, fuzzCase: FuzzCase): Promise<void> {
  const answer = await send(endpoint, fuzzCase);
  const context = `${endpoint} ${answer.status} ${answer.text.slice(0, 200)}`;
  expect(answer.status, context).toBeLessThan(500);
  expect(answer.status, context).toBe(expectedStatus(endpoint, fuzzCase));
  expect(checker.problems("post", `/api/v1/${endpoint}`, answer), context).toEqual([]);
  const contentType = answer.headers.get("content-type") ?? "";
  if (answer.status !== 200) {
    if (endpoint === "completions") {
      // Spec §7.3: every error of /completions is the completions error object.
      expect(contentType, context).toMatch(/^application\/json/u);
      completionErrorBodySchema.parse(JSON.parse(answer.text));
    } else {
      // Spec §7.1: validation and authentication errors are plain text.
      expect(contentType, context).toMatch(/^text\/plain/u);
      expect(answer.text.trim(), context).not.toBe("");
    }
  }
  requestIds.push(answer.headers.get("x-request-id") ?? "");
  if (answer.status === 200) served.ok += 1;
  else served.rejected += 1;
}

describe(`property-based fuzzing of the three endpoints (${RUNS} cases each)`, () => {
  for (const endpoint of ["generate", "personify", "completions"] as const) {
    it(`POST /api/v1/${endpoint}: no 5xx, the spec's status and format for every body, /healthz still answers`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArbitrary(endpoint), (fuzzCase) => checkCase(endpoint, fuzzCase)),
        FUZZ_PARAMETERS,
      );
      const health = await fetch(`${service.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
    }, 240_000);
  }

  it("charged exactly the requests answered 200, nothing for rejected ones, and holds no reservation", async () => {
    expect(served.ok).toBeGreaterThan(RUNS / 10);
    expect(served.rejected).toBeGreaterThan(RUNS / 2);
    const { balances } = service.services.billing;
    const { usage } = service.services;
    const charges = (await balances.entries(service.accountId)).filter(
      (entry) => entry.kind === "charge",
    );
    expect(charges).toHaveLength(served.ok);
    const rows = await usage.findByRequestIds(requestIds);
    for (const row of rows) {
      if (row.status !== 200) expect(row.costMicros, `usage row of a ${row.status}`).toBe(0);
    }
    expect(rows.filter((row) => row.status === 200)).toHaveLength(served.ok);
    const balance = await balances.balanceOf(service.accountId);
    expect(balance?.reservedMicros).toBe(0);
    expect(await balances.ledgerSum(service.accountId)).toBe(balance?.balanceMicros);
    expect(await balances.openReservations(service.accountId)).toBe(0);
  });
});
