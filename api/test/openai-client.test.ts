import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
let client: OpenAI;
beforeAll(async () => {
  service = await startTestService();
  client = new OpenAI({ baseURL: `${service.url}/api/v1`, apiKey: service.key, maxRetries: 0 });
});
afterAll(() => service.stop());

describe("the official openai client against /api/v1 (spec §4.3, §5.2)", () => {
  it("creates completions with prompt, n, echo and stop", async () => {
    const completion = await client.completions.create({
      model: service.persona.id,
      prompt: "Hello there!",
      n: 2,
      echo: true,
      stop: ["\u0000never"],
    });
    expect(completion.object).toBe("text_completion");
    expect(completion.id).toMatch(/^cmpl-/u);
    expect(completion.choices).toHaveLength(2);
    for (const choice of completion.choices) {
      expect(choice.text.startsWith("Hello there!\n")).toBe(true);
      expect(choice.finish_reason).toBe("stop");
    }
    expect(completion.usage).toBeUndefined();
  });

  it("surfaces BadRequestError with param for a rejected parameter", async () => {
    const error = await client.completions
      .create({ model: service.persona.id, prompt: "hi", max_tokens: 10 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("max_tokens");
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).type).toBe(
      "invalid_request_error",
    );
  });

  it("surfaces AuthenticationError for a bad key and NotFoundError for an unknown persona", async () => {
    const stranger = new OpenAI({
      baseURL: `${service.url}/api/v1`,
      apiKey: "prk_wrong",
      maxRetries: 0,
    });
    await expect(
      stranger.completions.create({ model: service.persona.id, prompt: "hi" }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const notFound = await client.completions
      .create({ model: "3e7b8c9d-1a2b-4c3d-8e4f-5a6b7c8d9e0f", prompt: "hi" })
      .catch((caught: unknown) => caught);
    expect(notFound).toBeInstanceOf(OpenAI.NotFoundError);
    expect((notFound as InstanceType<typeof OpenAI.NotFoundError>).param).toBe("model");
  });
});
