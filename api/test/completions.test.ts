import { completionErrorBodySchema, completionResponseSchema } from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

async function completionError(body: unknown, status = 400, headers?: Record<string, string>) {
  const response = await service.post(
    "/api/v1/completions",
    body,
    headers === undefined ? {} : { headers },
  );
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/u);
  return completionErrorBodySchema.strict().parse(await response.json()).error;
}

describe("POST /api/v1/completions (docs/API.md §4.3)", () => {
  it("answers a prompt in the text_completion shape without usage", async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await service.post("/api/v1/completions", {
      model: service.persona.id,
      prompt: "Hello! What are you growing this year?",
    });
    expect(response.status).toBe(200);
    const raw = (await response.json()) as Record<string, unknown>;
    expect(raw).not.toHaveProperty("usage");
    const body = completionResponseSchema.strict().parse(raw);
    expect(body.id).toMatch(/^cmpl-/u);
    expect(body.object).toBe("text_completion");
    expect(body.model).toBe(service.persona.id);
    expect(body.created).toBeGreaterThanOrEqual(before);
    expect(body.choices).toHaveLength(1);
    const [choice] = body.choices;
    expect(choice).toMatchObject({ index: 0, logprobs: null, finish_reason: "stop" });
    expect(choice?.text.length).toBeGreaterThan(0);
    expect(choice?.chunks.join(" ").split(/\s+/u)).toEqual(choice?.text.split(/\s+/u));
  });

  it("accepts a one-item prompt array and messages, and returns n choices", async () => {
    const fromArray = await service.post("/api/v1/completions", {
      model: service.persona.id,
      prompt: ["Good morning"],
      n: 3,
    });
    const body = completionResponseSchema.parse(await fromArray.json());
    expect(body.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    const fromMessages = await service.post("/api/v1/completions", {
      model: service.persona.id,
      messages: [
        { role: "developer", content: "Keep it short." },
        { role: "user", content: [{ type: "text", text: "Any tips for roses?" }] },
      ],
      n: 5,
    });
    expect(completionResponseSchema.parse(await fromMessages.json()).choices).toHaveLength(5);
  });

  it("accepts and ignores temperature, top_p, penalties, best_of, seed, suffix and user", async () => {
    const base = { model: service.persona.id, prompt: "Tell me about compost." };
    const plain = completionResponseSchema.parse(
      await (await service.post("/api/v1/completions", base)).json(),
    );
    const tuned = completionResponseSchema.parse(
      await (
        await service.post("/api/v1/completions", {
          ...base,
          temperature: 1.7,
          top_p: 0.2,
          presence_penalty: 1,
          frequency_penalty: -1,
          best_of: 3,
          seed: 42,
          suffix: "!",
          user: "someone",
        })
      ).json(),
    );
    expect(tuned.choices[0]?.text).toBe(plain.choices[0]?.text);
  });

  it("normalizes, then applies stop, then prepends the prompt for echo (rule 7)", async () => {
    const prompt = "Hi! How should I water ferns?";
    const base = completionResponseSchema.parse(
      await (
        await service.post("/api/v1/completions", { model: service.persona.id, prompt })
      ).json(),
    );
    const text = base.choices[0]?.text ?? "";
    const firstSpace = text.indexOf(" ");
    const stopWord = text.slice(firstSpace + 1).split(" ")[0] ?? "";
    const stopped = completionResponseSchema.parse(
      await (
        await service.post("/api/v1/completions", {
          model: service.persona.id,
          prompt,
          stop: [stopWord, "zzz-not-there"],
          echo: true,
        })
      ).json(),
    );
    const expectedTail = text.slice(0, text.indexOf(stopWord));
    expect(stopped.choices[0]?.text).toBe(`${prompt}\n${expectedTail}`);
    const single = completionResponseSchema.parse(
      await (
        await service.post("/api/v1/completions", {
          model: service.persona.id,
          prompt,
          stop: stopWord,
        })
      ).json(),
    );
    expect(single.choices[0]?.text).toBe(expectedTail);
  });

  describe("errors use { error: { message, type, param, code: null } } (docs/API.md §7.3–7.4)", () => {
    it("missing model → invalid_request_error with param model", async () => {
      const error = await completionError({ prompt: "hi" });
      expect(error).toMatchObject({ type: "invalid_request_error", param: "model", code: null });
    });

    it("rejects stream true, max_tokens and logprobs (rules 3–4)", async () => {
      const model = service.persona.id;
      expect(await completionError({ model, prompt: "hi", stream: true })).toMatchObject({
        param: "stream",
        message: expect.stringMatching(/stream/u),
      });
      expect((await completionError({ model, prompt: "hi", max_tokens: 16 })).param).toBe(
        "max_tokens",
      );
      expect((await completionError({ model, prompt: "hi", logprobs: 2 })).param).toBe("logprobs");
      // stream false is fine.
      const ok = await service.post("/api/v1/completions", { model, prompt: "hi", stream: false });
      expect(ok.status).toBe(200);
    });

    it("rejects tool calling (rule 6)", async () => {
      const model = service.persona.id;
      const error = await completionError({ model, prompt: "hi", tools: [{ type: "function" }] });
      expect(error).toMatchObject({ param: "tools", message: expect.stringMatching(/tool/u) });
      expect((await completionError({ model, prompt: "hi", functions: [] })).param).toBe(
        "functions",
      );
    });

    it("rejects both or neither of prompt and messages (rule 1)", async () => {
      const model = service.persona.id;
      const both = await completionError({
        model,
        prompt: "hi",
        messages: [{ role: "user", content: "hi" }],
      });
      expect(both.message).toMatch(/not both/u);
      const neither = await completionError({ model });
      expect(neither.message).toMatch(/either prompt or messages/u);
    });

    it("rejects a prompt array that is not exactly one string, and empty prompts", async () => {
      const model = service.persona.id;
      for (const prompt of [[], ["a", "b"], [1], "", "  ", [""], 7]) {
        expect((await completionError({ model, prompt })).param).toMatch(/^prompt/u);
      }
    });

    it("rejects a last message that is not a non-empty user message (rule 2)", async () => {
      const model = service.persona.id;
      const assistantLast = await completionError({
        model,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
        ],
      });
      expect(assistantLast.param).toBe("messages[1].role");
      const empty = await completionError({ model, messages: [{ role: "user", content: "" }] });
      expect(empty.param).toBe("messages[0].content");
    });

    it("rejects n outside 1–5", async () => {
      const model = service.persona.id;
      for (const n of [0, 6, 2.5, "2"]) {
        expect((await completionError({ model, prompt: "hi", n })).param).toBe("n");
      }
    });

    it("malformed JSON → 400, missing key → 401, unknown model → 404", async () => {
      const malformed = await service.post("/api/v1/completions", null, { raw: "{" });
      expect(malformed.status).toBe(400);
      expect(completionErrorBodySchema.parse(await malformed.json()).error.type).toBe(
        "invalid_request_error",
      );
      const unauthenticated = await completionError(
        { model: service.persona.id, prompt: "hi" },
        401,
        { "x-api-key": "" },
      );
      expect(unauthenticated.type).toBe("authentication_error");
      const unknown = await completionError(
        { model: "4f7c1e2a-8b9d-4c3e-a1f0-123456789abc", prompt: "hi" },
        404,
      );
      expect(unknown).toMatchObject({
        param: "model",
        message: expect.stringMatching(/unknown personaId/u),
      });
    });
  });
});
