import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyMutations,
  describeMutations,
  expectedOutcome,
  headerMutations,
  type Outcome,
  parserMayRefuse,
} from "../../test-support/fuzz-headers.js";
import { fuzzSettings } from "../../test-support/fuzz-settings.js";
import { sendWire, type WireAnswer, type WireRequest } from "../../test-support/raw-http.js";
import { type ApiFixture, startApi } from "../../test-support/spawn-service.js";
import type { RunningExampleServer } from "../server/server.js";
import { serviceEnvironment, startExample } from "./support/example-fixture.js";

/**
 * Property-based fuzzing of request headers on the example app's routes
 *: a well-formed request with up to three header mutations
 * (test-support/fuzz-headers.ts) — content types and charsets, content
 * encodings real and lying, Content-Length that lies, key headers (which the
 * app ignores) — is never a 5xx, every error is `{ error: { type, message } }`,
 * a body the app cannot read is a 400 `validation` error, and the service
 * charges only what the app answered 200. PERSONA_FUZZ_HEADER_RUNS,
 * PERSONA_FUZZ_SEED and PERSONA_FUZZ_PATH as in api/test/header-fuzz.test.ts.
 */
const { runs: RUNS, parameters: FUZZ_PARAMETERS } = fuzzSettings("PERSONA_FUZZ_HEADER_RUNS", 250);

let api: ApiFixture;
let example: RunningExampleServer;
let answered200 = 0;

beforeAll(async () => {
  api = await startApi();
  for (const { id } of JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
    id: string;
  }>) {
    api.admin("limits", "set", "--key", id, "--minute", "1000000", "--hour", "1000000");
  }
  example = await startExample(serviceEnvironment(api));
});
afterAll(async () => {
  await example?.stop();
  await api?.stop();
});

const BODIES = {
  "/api/quickstart": { prompt: "Hi! Which herbs grow well on a balcony?" },
  "/api/chat": { messages: [{ role: "user", content: "Hello!" }] },
  "/api/personify": { raw: "The meeting moves to Thursday." },
} as const;

/** What each outcome ends in on the example app: every body it cannot read is a 400. */
const STATUSES: Record<Exclude<Outcome, "any">, number[]> = {
  success: [200],
  unsupported: [400],
  "wrong-media-type": [400],
  corrupt: [400],
  "too-large": [400],
  aborted: [400],
  "bad-key": [200],
  "parser-refusal": [400],
};

/** Node's own refusal of a request its parser could not take (no body, or "Bad Request"). */
const isParserRefusal = (answer: WireAnswer) =>
  answer.status === 400 && (answer.text === "" || answer.text === "Bad Request\n");

describe(`property-based fuzzing of request headers on the example app (${RUNS} cases each)`, () => {
  for (const [path, body] of Object.entries(BODIES)) {
    it(`POST ${path}: no 5xx, { error: { type, message } }, 400 validation for a body it cannot read`, async () => {
      const base = (): WireRequest => ({
        method: "POST",
        path,
        headers: [["Content-Type", "application/json"]],
        body: Buffer.from(JSON.stringify(body)),
        framing: { kind: "exact" },
      });
      await fc.assert(
        fc.asyncProperty(headerMutations({ kind: "json" }), async (mutations) => {
          const answer = await sendWire(example.url, applyMutations(base(), mutations), 10_000);
          const context = `${path} ${describeMutations(mutations)} → ${answer.status} ${answer.text.slice(0, 160)}`;
          expect(answer.timedOut, context).toBe(false);
          expect(answer.status, context).toBeGreaterThanOrEqual(200);
          expect(answer.status, context).toBeLessThan(500);
          const outcome = expectedOutcome(mutations);
          if (outcome !== "any") expect(STATUSES[outcome], context).toContain(answer.status);
          if (answer.status === 200) {
            answered200 += 1;
            return;
          }
          if (parserMayRefuse(mutations) && isParserRefusal(answer)) return;
          expect(answer.headers["content-type"], context).toMatch(/^application\/json/u);
          const error = (JSON.parse(answer.text) as { error: { type: string; message: string } })
            .error;
          expect(["validation", "provider"], context).toContain(error.type);
          if (answer.status === 400) expect(error.type, context).toBe("validation");
          expect(error.message.length, context).toBeGreaterThan(0);
        }),
        FUZZ_PARAMETERS,
      );
    }, 240_000);
  }

  it("the service charged only the requests the example app answered 200", () => {
    expect(answered200).toBeGreaterThan(RUNS / 10);
    const usage = JSON.parse(api.admin("usage", "--account", api.accountId, "--json")) as Array<{
      served: number;
    }>;
    // The first run's seed served nothing; every request served came from this suite.
    expect(usage.reduce((sum, line) => sum + line.served, 0)).toBe(answered200);
  });
});
