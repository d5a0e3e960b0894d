import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiFixture,
  EXAMPLE_PERSONA_FILE,
  startApi,
} from "../../test-support/spawn-service.js";
import type { RunningExampleServer } from "../server/server.js";
import {
  callService,
  postJson,
  serviceEnvironment,
  startExample,
} from "./support/example-fixture.js";

let api: ApiFixture;
let example: RunningExampleServer;
/** Every body the example server answered, to check none holds the key. */
const answered: string[] = [];

async function post(path: string, body: unknown, server = example) {
  const result = await postJson(`${server.url}${path}`, body);
  answered.push(result.text);
  return result;
}

beforeAll(async () => {
  api = await startApi();
  example = await startExample(serviceEnvironment(api));
});
afterAll(async () => {
  await example?.stop();
  await api?.stop();
});

describe("POST /api/quickstart (docs/API.md §4.6): completions-style endpoint through the openai client", () => {
  it("answers { text, model } with the persona's reply and its chunks", async () => {
    const prompt = "Hi! Which herbs grow well on a balcony?";
    const result = await post("/api/quickstart", { prompt });
    expect(result.status).toBe(200);
    const direct = await callService(api, "completions", { model: api.personaId, prompt });
    const choice = (direct.choices as Array<{ text: string; chunks: string[] }>)[0];
    expect(result.body).toEqual({
      text: choice?.text,
      model: api.personaId,
      chunks: choice?.chunks,
    });
    expect(choice?.text.length).toBeGreaterThan(0);
  });
});

describe("POST /api/chat (docs/API.md §4.6): the history goes to /completions as messages", () => {
  it("answers { reply, model } for a multi-turn history, with the reply's chunks", async () => {
    const messages = [
      { role: "system", content: "The user is new to gardening." },
      { role: "user", content: "Hello!" },
      { role: "assistant", content: "Hello there! How can I help?" },
      { role: "user", content: "Can you help me choose herbs for a sunny balcony?" },
    ];
    const result = await post("/api/chat", { messages });
    expect(result.status).toBe(200);
    const direct = await callService(api, "completions", { model: api.personaId, messages });
    const choice = (direct.choices as Array<{ text: string; chunks: string[] }>)[0];
    expect(result.body).toEqual({
      reply: choice?.text,
      model: api.personaId,
      chunks: choice?.chunks,
    });
  });
});

describe("POST /api/chat takes the service's message content: a string or text parts", () => {
  it("passes text parts on, and answers as the service does", async () => {
    const messages = [
      { role: "system", content: [{ type: "text", text: "The user is new to gardening." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "Hello!" },
          { type: "text", text: "Which herbs like sun?" },
        ],
      },
    ];
    const result = await post("/api/chat", { messages });
    expect(result.status).toBe(200);
    const direct = await callService(api, "completions", { model: api.personaId, messages });
    const choice = (direct.choices as Array<{ text: string; chunks: string[] }>)[0];
    expect(result.body).toEqual({
      reply: choice?.text,
      model: api.personaId,
      chunks: choice?.chunks,
    });
  });

  it.each([
    [
      "a part that is not text",
      [{ role: "user", content: [{ type: "image_url", image_url: "x" }] }],
      /^messages\[0\]\.content/u,
    ],
    [
      "a last user message of blank parts",
      [
        {
          role: "user",
          content: [
            { type: "text", text: " " },
            { type: "text", text: "" },
          ],
        },
      ],
      /^messages\[0\]\.content: the last user message must not be empty$/u,
    ],
  ])("refuses %s like the service", async (_name, messages, message) => {
    const result = await post("/api/chat", { messages });
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      error: { type: "validation", message: expect.stringMatching(message) },
    });
  });
});

describe("POST /api/personify (docs/API.md §4.6): the native endpoint through the client library", () => {
  it("answers { personified, chunks, model }", async () => {
    const raw = "The meeting moves to Thursday. Bring the seed catalogue.";
    const result = await post("/api/personify", { raw });
    expect(result.status).toBe(200);
    const direct = await callService(api, "personify", { personaId: api.personaId, raw });
    expect(result.body).toEqual({ ...direct, model: api.personaId });
    expect((result.body as { chunks: string[] }).chunks.length).toBeGreaterThan(0);
  });
});

describe("personaId in the body overrides SERVICE_PERSONA_ID", () => {
  let otherPersona: string;
  let noPersonify: string;
  beforeAll(() => {
    otherPersona = api.admin(
      "persona",
      "create",
      "--account",
      api.accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    );
    noPersonify = api.admin(
      "persona",
      "create",
      "--account",
      api.accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    );
    api.admin("persona", "revoke-personify", noPersonify);
  });

  it("on quickstart, chat and personify the named persona answers", async () => {
    const quickstart = await post("/api/quickstart", { prompt: "Hello!", personaId: otherPersona });
    expect(quickstart.status).toBe(200);
    expect((quickstart.body as { model: string }).model).toBe(otherPersona);
    const chat = await post("/api/chat", {
      messages: [{ role: "user", content: "Hello!" }],
      personaId: otherPersona,
    });
    expect(chat.status).toBe(200);
    expect((chat.body as { model: string }).model).toBe(otherPersona);
    const personify = await post("/api/personify", {
      raw: "We meet at noon.",
      personaId: otherPersona,
    });
    expect(personify.status).toBe(200);
    expect((personify.body as { model: string }).model).toBe(otherPersona);
  });

  it("a persona without /personify access is the service's 403, as a provider error", async () => {
    const result = await post("/api/personify", {
      raw: "We meet at noon.",
      personaId: noPersonify,
    });
    expect(result.status).toBe(403);
    const body = result.body as { error: { type: string; message: string } };
    expect(body.error.type).toBe("provider");
    expect(body.error.message).toMatch(/personify/iu);
  });

  it("an unknown persona is the service's 404, as a provider error with its message", async () => {
    const unknown = "3e7b8c9d-1a2b-4c3d-8e4f-5a6b7c8d9e0f";
    for (const [path, body] of [
      ["/api/quickstart", { prompt: "Hi", personaId: unknown }],
      ["/api/chat", { messages: [{ role: "user", content: "Hi" }], personaId: unknown }],
      ["/api/personify", { raw: "Hi", personaId: unknown }],
    ] as const) {
      const result = await post(path, body);
      expect(result.status, path).toBe(404);
      const error = (result.body as { error: { type: string; message: string } }).error;
      expect(error.type, path).toBe("provider");
      expect(error.message, path).toMatch(/persona/iu);
    }
  });
});

describe("validation errors (400, type validation): say what to fix", () => {
  const cases: Array<[string, string, unknown, RegExp]> = [
    ["quickstart without prompt", "/api/quickstart", {}, /^prompt: is required$/u],
    [
      "quickstart with a blank prompt",
      "/api/quickstart",
      { prompt: "  " },
      /^prompt: must not be empty$/u,
    ],
    ["quickstart with a number", "/api/quickstart", { prompt: 42 }, /^prompt: must be a string$/u],
    [
      "a personaId that is not a UUID",
      "/api/quickstart",
      { prompt: "Hi", personaId: "abc" },
      /^personaId: must be a persona ID \(a UUID\)$/u,
    ],
    ["chat without messages", "/api/chat", {}, /^messages: is required$/u],
    [
      "chat with no message",
      "/api/chat",
      { messages: [] },
      /^messages: must hold at least one message$/u,
    ],
    [
      "chat with a bad role",
      "/api/chat",
      { messages: [{ role: "robot", content: "Hi" }] },
      /^messages\[0\]\.role: must be one of user, assistant, system, developer$/u,
    ],
    [
      "chat ending with the assistant",
      "/api/chat",
      {
        messages: [
          { role: "user", content: "Hi" },
          { role: "assistant", content: "Hello" },
        ],
      },
      /^messages\[1\]\.role: the last message must have role user, not assistant$/u,
    ],
    [
      "chat ending with an empty user message",
      "/api/chat",
      { messages: [{ role: "user", content: " " }] },
      /^messages\[0\]\.content: the last user message must not be empty$/u,
    ],
    [
      "personify without raw",
      "/api/personify",
      { personaId: "3e7b8c9d-1a2b-4c3d-8e4f-5a6b7c8d9e0f" },
      /^raw: is required$/u,
    ],
    ["a body that is an array", "/api/personify", [1, 2], /must be a JSON object, not an array$/u],
    [
      "a body that is null",
      "/api/chat",
      null,
      /^the request body must be a JSON object, not null$/u,
    ],
    ["a body that is a string", "/api/quickstart", '"Hi"', /must be a JSON object, not a string$/u],
  ];
  it.each(cases)("%s", async (_name, path, body, message) => {
    const result = await post(path, body);
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      error: { type: "validation", message: expect.stringMatching(message) },
    });
  });

  it("malformed JSON and a body that is not JSON", async () => {
    const malformed = await post("/api/quickstart", "{ not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      error: { type: "validation", message: "the request body is not valid JSON" },
    });
    const response = await fetch(`${example.url}/api/chat`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "hello",
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        type: "validation",
        message: "the request body must be a JSON object sent with content-type: application/json",
      },
    });
  });

  it("a JSON null body is not called malformed JSON", async () => {
    for (const path of ["/api/quickstart", "/api/chat", "/api/personify"]) {
      const result = await post(path, "null");
      expect(result.status, path).toBe(400);
      const message = (result.body as { error: { message: string } }).error.message;
      expect(message, path).toBe("the request body must be a JSON object, not null");
      expect(message, path).not.toContain("not valid JSON");
    }
  });

  it("an unknown /api route is 404 and another method 405, in the same error format", async () => {
    const unknown = await post("/api/generate", { prompt: "Hi" });
    expect(unknown.status).toBe(404);
    expect((unknown.body as { error: { type: string } }).error.type).toBe("validation");
    const wrongMethod = await fetch(`${example.url}/api/chat`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await wrongMethod.json()).toEqual({
      error: { type: "validation", message: "/api/chat accepts POST only" },
    });
  });
});

describe("config errors (500, type config): name the variable, never its value", () => {
  it("SERVICE_API_KEY unset: every route says so", async () => {
    const unconfigured = await startExample({
      ...serviceEnvironment(api),
      SERVICE_API_KEY: undefined,
    });
    try {
      for (const [path, body] of [
        ["/api/quickstart", { prompt: "Hi" }],
        ["/api/chat", { messages: [{ role: "user", content: "Hi" }] }],
        ["/api/personify", { raw: "Hi" }],
      ] as const) {
        const result = await post(path, body, unconfigured);
        expect(result.status, path).toBe(500);
        const error = (result.body as { error: { type: string; message: string } }).error;
        expect(error.type, path).toBe("config");
        expect(error.message, path).toMatch(/^SERVICE_API_KEY is not set/u);
      }
    } finally {
      await unconfigured.stop();
    }
  });

  it("SERVICE_PERSONA_ID unset: a config error, unless the request names a personaId", async () => {
    const noPersona = await startExample({
      ...serviceEnvironment(api),
      SERVICE_PERSONA_ID: undefined,
    });
    try {
      const missing = await post("/api/quickstart", { prompt: "Hi" }, noPersona);
      expect(missing.status).toBe(500);
      const error = (missing.body as { error: { type: string; message: string } }).error;
      expect(error.type).toBe("config");
      expect(error.message).toMatch(/^SERVICE_PERSONA_ID is not set/u);
      const named = await post(
        "/api/quickstart",
        { prompt: "Hi", personaId: api.personaId },
        noPersona,
      );
      expect(named.status).toBe(200);
    } finally {
      await noPersona.stop();
    }
  });

  it("SERVICE_BASE_URL that is not a URL, or SERVICE_PERSONA_ID that is not a UUID", async () => {
    const badUrl = await startExample({
      ...serviceEnvironment(api),
      SERVICE_BASE_URL: "not a url",
    });
    const badPersona = await startExample({
      ...serviceEnvironment(api),
      SERVICE_PERSONA_ID: "demo",
    });
    try {
      const url = await post("/api/personify", { raw: "Hi" }, badUrl);
      expect(url.status).toBe(500);
      expect(url.body).toEqual({
        error: {
          type: "config",
          message: "SERVICE_BASE_URL is not a URL (expected e.g. http://127.0.0.1:8787)",
        },
      });
      const persona = await post(
        "/api/chat",
        { messages: [{ role: "user", content: "Hi" }] },
        badPersona,
      );
      expect(persona.body).toEqual({
        error: { type: "config", message: "SERVICE_PERSONA_ID is not a persona ID (a UUID)" },
      });
    } finally {
      await badUrl.stop();
      await badPersona.stop();
    }
  });

  it("SERVICE_BASE_URL with /api/v1 (the completions-style form) works as well (docs/API.md §5.4)", async () => {
    const withPrefix = await startExample({
      ...serviceEnvironment(api),
      SERVICE_BASE_URL: `${api.baseUrl}/api/v1/`,
    });
    try {
      expect((await post("/api/quickstart", { prompt: "Hi" }, withPrefix)).status).toBe(200);
      expect((await post("/api/personify", { raw: "Hi there." }, withPrefix)).status).toBe(200);
    } finally {
      await withPrefix.stop();
    }
  });
});

describe("the key stays on the server", () => {
  it("no response of these tests holds the key or a piece of it", () => {
    expect(answered.length).toBeGreaterThan(20);
    const secret = api.apiKey.slice(4, 24);
    for (const text of answered) expect(text.includes(secret)).toBe(false);
  });
});
