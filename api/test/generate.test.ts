import { generateResponseSchema } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const words = (text: string) => text.split(/\s+/u).filter((word) => word !== "");

async function expectPlainText(response: Response, status: number, fragment: string | RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/u);
  const text = await response.text();
  expect(text).toMatch(fragment);
  return text;
}

describe("POST /api/v1/generate (docs/API.md §4.1)", () => {
  it("answers 200 with status success, finalReply and chunks carrying the same words", async () => {
    const response = await service.post("/api/v1/generate", {
      personaId: service.persona.id,
      messages: [
        { role: "system", content: "The user is new to gardening." },
        { role: "user", content: "Hi there! How do I keep my tomatoes happy?" },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/u);
    const body = generateResponseSchema.strict().parse(await response.json());
    expect(body.status).toBe("success");
    expect(body.result.finalReply.length).toBeGreaterThan(0);
    expect(body.result.chunks.length).toBeGreaterThan(0);
    expect(words(body.result.chunks.join(" "))).toEqual(words(body.result.finalReply));
    // includeVariations false: finalReply and chunks only (docs/API.md §4.1).
    expect(Object.keys(body.result).sort()).toEqual(["chunks", "finalReply"]);
  });

  it("returns replyChoices containing the finalReply when includeVariations is true", async () => {
    const response = await service.post("/api/v1/generate", {
      personaId: service.persona.id,
      includeVariations: true,
      messages: [
        { role: "user", content: [{ type: "text", text: "What should I plant in spring?" }] },
      ],
    });
    expect(response.status).toBe(200);
    const body = generateResponseSchema.parse(await response.json());
    expect(body.result.replyChoices?.length).toBeGreaterThan(1);
    expect(body.result.replyChoices).toContain(body.result.finalReply);
  });

  it("accepts timestamp, createdAt and created_at as message fields", async () => {
    const response = await service.post("/api/v1/generate", {
      personaId: service.persona.id,
      messages: [
        { role: "user", content: "hello", timestamp: 1_763_700_000 },
        { role: "assistant", content: "Hi!", createdAt: "2026-11-21T10:00:00Z" },
        { role: "user", content: "How are you?", created_at: 1_763_700_000_000 },
      ],
    });
    expect(response.status).toBe(200);
  });

  it("is deterministic on the offline engine for the same history", async () => {
    const request = {
      personaId: service.persona.id,
      messages: [{ role: "user", content: "Thanks so much for the help!" }],
    };
    const first = (await (await service.post("/api/v1/generate", request)).json()) as {
      result: unknown;
    };
    const second = (await (await service.post("/api/v1/generate", request)).json()) as {
      result: unknown;
    };
    // rateLimits counts down between the two; the reply itself must not change.
    expect(second.result).toEqual(first.result);
  });

  describe("rules and errors as plain text (docs/API.md §7 format 1)", () => {
    it("rule 1: an assistant message cannot be last → 422", async () => {
      const response = await service.post("/api/v1/generate", {
        personaId: service.persona.id,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
        ],
      });
      await expectPlainText(response, 422, /last message must have role user/u);
    });

    it("rule 1: a system message cannot be last → 422", async () => {
      const response = await service.post("/api/v1/generate", {
        personaId: service.persona.id,
        messages: [
          { role: "user", content: "hi" },
          { role: "system", content: "be brief" },
        ],
      });
      await expectPlainText(response, 422, /messages\[1\]\.role/u);
    });

    it("rule 2: the last user message must have non-empty content → 422", async () => {
      for (const content of ["", "   ", [], [{ type: "text", text: " " }]]) {
        const response = await service.post("/api/v1/generate", {
          personaId: service.persona.id,
          messages: [{ role: "user", content }],
        });
        await expectPlainText(response, 422, /non-empty content/u);
      }
    });

    it("rule 4: only text content is supported → 422", async () => {
      const response = await service.post("/api/v1/generate", {
        personaId: service.persona.id,
        messages: [{ role: "user", content: [{ type: "image_url", image_url: "x" }] }],
      });
      await expectPlainText(response, 422, /text/u);
    });

    it("rejects missing personaId, empty messages, unknown roles and bad types → 422", async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ messages: [{ role: "user", content: "hi" }] }, /personaId: is required/u],
        [{ personaId: "not-a-uuid", messages: [{ role: "user", content: "hi" }] }, /personaId/u],
        [{ personaId: service.persona.id, messages: [] }, /at least one message/u],
        [{ personaId: service.persona.id }, /messages: is required/u],
        [
          { personaId: service.persona.id, messages: [{ role: "tool", content: "hi" }] },
          /messages\[0\]\.role: must be one of user, assistant, system, developer/u,
        ],
        [
          { personaId: service.persona.id, messages: [{ role: "user", content: 5 }] },
          /messages\[0\]\.content/u,
        ],
        [
          {
            personaId: service.persona.id,
            messages: [{ role: "user", content: "hi" }],
            includeVariations: "yes",
          },
          /includeVariations/u,
        ],
        [
          {
            personaId: service.persona.id,
            messages: [{ role: "user", content: "hi", timestamp: "not a date" }],
          },
          /timestamp/u,
        ],
        [[1, 2], /JSON object/u],
      ];
      for (const [body, fragment] of cases) {
        await expectPlainText(await service.post("/api/v1/generate", body), 422, fragment);
      }
    });

    it("malformed JSON → 400", async () => {
      const response = await service.post("/api/v1/generate", null, { raw: '{"personaId": ' });
      await expectPlainText(response, 400, /malformed JSON/u);
    });

    it("missing or invalid API key → 401", async () => {
      const body = { personaId: service.persona.id, messages: [{ role: "user", content: "hi" }] };
      const missing = await service.post("/api/v1/generate", body, {
        headers: { "x-api-key": "" },
      });
      await expectPlainText(missing, 401, /missing API key/u);
      const wrong = await service.post("/api/v1/generate", body, {
        headers: { "x-api-key": "prk_not-a-key" },
      });
      await expectPlainText(wrong, 401, /invalid API key/u);
    });

    it("unknown persona → 404 with 'unknown personaId'", async () => {
      const response = await service.post("/api/v1/generate", {
        personaId: "7d0c7f4e-9a43-4a8e-8b7e-2f6a4e0c9d11",
        messages: [{ role: "user", content: "hi" }],
      });
      await expectPlainText(response, 404, /unknown personaId/u);
    });
  });
});
