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

describe("the official openai client against /api/v1 (docs/API.md §4.3, §5.2)", () => {
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

describe("the official openai client with messages (docs/API.md §4.3 rule 1)", () => {
  it("accepts `prompt: null` beside messages, as the SDK's types have a messages user send it", async () => {
    // The SDK types `prompt` as required but nullable, and has no `messages`
    // on completions: extra fields go in the body as they are.
    const body: OpenAI.CompletionCreateParamsNonStreaming & {
      messages: Array<{ role: string; content: string }>;
    } = {
      model: service.persona.id,
      prompt: null,
      messages: [
        { role: "system", content: "Answer briefly." },
        { role: "user", content: "Which herbs like sun?" },
      ],
    };
    const completion = await client.completions.create(body);
    expect(completion.object).toBe("text_completion");
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]?.text).not.toBe("");
  });

  it("treats `messages: null` as absent beside a prompt, and refuses when both are null", async () => {
    const body = { model: service.persona.id, prompt: "Hello!", messages: null };
    const completion = await client.completions.create(
      body as OpenAI.CompletionCreateParamsNonStreaming,
    );
    expect(completion.choices).toHaveLength(1);

    const error = await client.completions
      .create({ model: service.persona.id, prompt: null, messages: null } as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const badRequest = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(badRequest.param).toBe("prompt");
    expect(badRequest.message).toBe("400 prompt: send either prompt or messages");
  });
});

describe("the official openai client on a path the service does not have", () => {
  it("raises NotFoundError with the service's message (the completions error object)", async () => {
    const error = await client.chat.completions
      .create({ model: service.persona.id, messages: [{ role: "user", content: "Hi" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const notFound = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(notFound.type).toBe("invalid_request_error");
    expect(notFound.code).toBeNull();
    expect(notFound.message).toBe(
      "404 no route for POST /api/v1/chat/completions; the endpoints are POST /api/v1/generate, /api/v1/personify, /api/v1/completions",
    );
  });
});
