import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type ApiFixture,
  EXAMPLE_PERSONA_FILE,
  startApi,
} from "../../test-support/spawn-service.js";
import {
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConnectionError,
  DEFAULT_BASE_URL,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PersonaClient,
  PersonaError,
  RateLimitError,
  UnprocessableEntityError,
} from "../src/index.js";
import { closedPort, startScriptedServer } from "./support/scripted-server.js";

// The library against the real service (api/dist/main.js on a loopback
// port): both methods and every error class the service can answer today.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u;
let api: ApiFixture;
let client: PersonaClient;
/** A persona of the demo account whose model route is an upstream that is down. */
let brokenPersonaId: string;

/** Awaits a promise that must reject and returns what it rejected with. */
async function failure(promise: Promise<unknown>): Promise<PersonaError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PersonaError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

/** Nothing an error exposes may hold the full key. */
function expectNoKey(error: PersonaError, key: string) {
  const exposed = [error.message, error.body, JSON.stringify(error), JSON.stringify(error.headers)];
  for (const text of exposed) expect(text).not.toContain(key);
}

beforeAll(async () => {
  const upstreamPort = await closedPort();
  api = await startApi({
    PERSONA_OPENAI_BASE_URL: `http://127.0.0.1:${upstreamPort}/v1`,
    PERSONA_PROVIDER_MAX_RETRIES: "0",
    PERSONA_PROVIDER_TIMEOUT_MS: "5000",
  });
  client = new PersonaClient({
    apiKey: api.apiKey,
    personaId: api.personaId,
    baseUrl: api.baseUrl,
    maxRetries: 0,
  });
  const persona = JSON.parse(fs.readFileSync(EXAMPLE_PERSONA_FILE, "utf8")) as object;
  const file = path.join(api.directory, "upstream-persona.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      ...persona,
      route: [{ upstream: "openai-compatible", model: "test-model" }],
    }),
  );
  brokenPersonaId = api.admin("persona", "create", "--account", api.accountId, "--file", file);
});

afterAll(async () => {
  await api?.stop();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("PersonaClient.generate against the service (docs/API.md §4.1)", () => {
  it("replies to a one-message history with finalReply and chunks, no replyChoices", async () => {
    const reply = await client.generate({
      messages: [{ role: "user", content: "Hi! Which herbs grow well on a balcony?" }],
    });
    expect(reply.finalReply.length).toBeGreaterThan(0);
    expect(reply.chunks.length).toBeGreaterThan(0);
    for (const chunk of reply.chunks) expect(reply.finalReply).toContain(chunk);
    expect(reply.replyChoices).toBeUndefined();
    // rateLimits is passed through when the service sends it (docs/API.md §4.1: "when available").
    for (const window of reply.rateLimits ?? []) {
      expect(["minute", "hour", "day"]).toContain(window.window);
      expect(window.remaining).toBeLessThanOrEqual(window.limit);
    }
    const extra = Object.keys(reply).filter((key) => !["finalReply", "chunks"].includes(key));
    expect(extra.every((key) => key === "rateLimits")).toBe(true);
  });

  it("returns replyChoices, including the selected reply, when variations are asked for", async () => {
    const reply = await client.generate({
      messages: [
        { role: "system", content: "The user is planning a balcony garden." },
        { role: "user", content: [{ type: "text", text: "Hello!" }], timestamp: 1_763_700_000 },
        { role: "assistant", content: "Hi! How can I help?" },
        {
          role: "user",
          content: "Thanks for the tips earlier.",
          createdAt: "2026-11-21T10:00:00Z",
        },
      ],
      includeVariations: true,
    });
    expect(reply.replyChoices?.length).toBeGreaterThan(1);
    expect(reply.replyChoices).toContain(reply.finalReply);
  });

  it("turns a 422 plain-text body into UnprocessableEntityError with the server's message", async () => {
    const error = await failure(
      client.generate({ messages: [{ role: "assistant", content: "I spoke last." }] }),
    );
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      "messages[0].role: the last message must have role user, not assistant",
    );
    expect(error.body).toBe(error.message);
    expect(error.headers["content-type"]).toMatch(/^text\/plain/u);
    expect(error.requestId).toMatch(UUID);
    expect(error.type).toBeUndefined();
  });

  it("turns an unknown persona into NotFoundError (404)", async () => {
    const stranger = new PersonaClient({
      apiKey: api.apiKey,
      personaId: "00000000-0000-4000-8000-000000000000",
      baseUrl: api.baseUrl,
    });
    const error = await failure(stranger.generate({ messages: [{ role: "user", content: "Hi" }] }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/^unknown personaId: 00000000-0000-4000-8000-000000000000/u);
  });

  it("turns a mistyped key into AuthenticationError (401) without ever showing the key", async () => {
    const last = api.apiKey.at(-1) === "A" ? "B" : "A";
    const mistyped = `${api.apiKey.slice(0, -1)}${last}`;
    const stranger = new PersonaClient({
      apiKey: mistyped,
      personaId: api.personaId,
      baseUrl: api.baseUrl,
    });
    const error = await failure(stranger.generate({ messages: [{ role: "user", content: "Hi" }] }));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/^invalid API key/u);
    expectNoKey(error, mistyped);
    expect(stranger.maskedApiKey).toBe(`prk_…${mistyped.slice(-4)}`);
    expect(JSON.stringify(stranger)).not.toContain(mistyped);
  });

  it("turns a revoked key into AuthenticationError (401)", async () => {
    const key = api.admin("key", "create", "--account", api.accountId, "--name", "to-revoke");
    const listed = JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
      id: string;
      name: string;
    }>;
    const id = listed.find((entry) => entry.name === "to-revoke")?.id ?? "";
    const holder = new PersonaClient({
      apiKey: key,
      personaId: api.personaId,
      baseUrl: api.baseUrl,
    });
    await expect(
      holder.generate({ messages: [{ role: "user", content: "Hi" }] }),
    ).resolves.toBeDefined();
    api.admin("key", "revoke", id);
    // The service sees a change made by another process within a second (its caches
    // are emptied when the database changes): ask until it refuses.
    const revokedAt = Date.now();
    let error: PersonaError | undefined;
    while (error === undefined && Date.now() - revokedAt < 1_000) {
      error = await holder.generate({ messages: [{ role: "user", content: "Hi" }] }).then(
        () => undefined,
        (thrown: unknown) => (thrown instanceof PersonaError ? thrown : Promise.reject(thrown)),
      );
    }
    if (error === undefined) throw new Error("the revoked key was still served after a second");
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toBe("invalid API key: this key has been revoked");
    expectNoKey(error, key);
  });

  it("turns a used-up rate-limit window into RateLimitError with retryAfter (429)", async () => {
    const key = api.admin("key", "create", "--account", api.accountId, "--name", "one-a-minute");
    const listed = JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
      id: string;
      name: string;
    }>;
    const id = listed.find((entry) => entry.name === "one-a-minute")?.id ?? "";
    api.admin("limits", "set", "--key", id, "--minute", "1");
    const limited = new PersonaClient({
      apiKey: key,
      personaId: api.personaId,
      baseUrl: api.baseUrl,
      maxRetries: 0,
    });
    const first = await limited.generate({ messages: [{ role: "user", content: "Hi" }] });
    expect(first.rateLimits?.find((window) => window.window === "minute")).toMatchObject({
      limit: 1,
      remaining: 0,
    });
    const error = await failure(limited.generate({ messages: [{ role: "user", content: "Hi" }] }));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.status).toBe(429);
    const retryAfter = (error as RateLimitError).retryAfter;
    expect(retryAfter).toBeGreaterThanOrEqual(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(error.message.length).toBeGreaterThan(0);
    expectNoKey(error, key);
  });

  it("turns a suspended account into PermissionDeniedError (403)", async () => {
    const accountId = api.admin("account", "create", "Suspended Ltd");
    const key = api.admin("key", "create", "--account", accountId, "--name", "suspended");
    const personaId = api.admin(
      "persona",
      "create",
      "--account",
      accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    );
    api.admin("account", "suspend", accountId);
    const suspended = new PersonaClient({ apiKey: key, personaId, baseUrl: api.baseUrl });
    const error = await failure(
      suspended.generate({ messages: [{ role: "user", content: "Hi" }] }),
    );
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.status).toBe(403);
    expect(error.headers["content-type"]).toMatch(/^text\/plain/u);
  });

  it("turns a provider failure into InternalServerError read from the JSON body (docs/API.md §7.2)", async () => {
    const viaUpstream = new PersonaClient({
      apiKey: api.apiKey,
      personaId: brokenPersonaId,
      baseUrl: api.baseUrl,
      maxRetries: 0,
    });
    const error = await failure(
      viaUpstream.generate({ messages: [{ role: "user", content: "Hi" }] }),
    );
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(502);
    expect(error.headers["content-type"]).toMatch(/^application\/json/u);
    const body = JSON.parse(error.body) as { error: { type: string; message: string } };
    expect(error.type).toBe(body.error.type);
    expect(error.type).toBe("upstream_error");
    expect(error.message).toBe(body.error.message);
    expect(error.requestId).toMatch(UUID);
  });
});

describe("PersonaClient.personify against the service (docs/API.md §4.2)", () => {
  it("rewrites text and returns personified and chunks", async () => {
    const result = await client.personify({ raw: "The meeting moves to Thursday." });
    expect(result.personified).toContain("Thursday");
    expect(result.chunks.join(" ")).toContain("Thursday");
    expect(Object.keys(result).sort()).toEqual(["chunks", "personified"]);
  });

  it("turns empty text into BadRequestError (400) with the server's message", async () => {
    const error = await failure(client.personify({ raw: "" }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toBe("raw: must be non-empty text");
  });

  it("turns a persona without /personify access into PermissionDeniedError (403)", async () => {
    const personaId = api.admin(
      "persona",
      "create",
      "--account",
      api.accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    );
    api.admin("persona", "revoke-personify", personaId);
    const limited = new PersonaClient({ apiKey: api.apiKey, personaId, baseUrl: api.baseUrl });
    const error = await failure(limited.personify({ raw: "Hello there." }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.status).toBe(403);
    expect(error.message.length).toBeGreaterThan(0);
    // The same persona may still generate.
    await expect(
      limited.generate({ messages: [{ role: "user", content: "Hi" }] }),
    ).resolves.toHaveProperty("finalReply");
  });
});

describe("PersonaClient configuration (docs/API.md §4.4, §5.4)", () => {
  it("falls back to SERVICE_API_KEY, SERVICE_PERSONA_ID and SERVICE_BASE_URL", async () => {
    vi.stubEnv("SERVICE_API_KEY", api.apiKey);
    vi.stubEnv("SERVICE_PERSONA_ID", api.personaId);
    vi.stubEnv("SERVICE_BASE_URL", `${api.baseUrl}/`);
    const fromEnvironment = new PersonaClient();
    expect(fromEnvironment.baseUrl).toBe(api.baseUrl);
    expect(fromEnvironment.baseUrlSource).toBe("environment");
    const result = await fromEnvironment.personify({ raw: "See you at the allotment." });
    expect(result.personified).toContain("allotment");
  });

  it("prefers options over the environment", () => {
    vi.stubEnv("SERVICE_BASE_URL", "http://127.0.0.1:1");
    const configured = new PersonaClient({
      apiKey: api.apiKey,
      personaId: api.personaId,
      baseUrl: api.baseUrl,
    });
    expect(configured.baseUrl).toBe(api.baseUrl);
    expect(configured.baseUrlSource).toBe("option");
  });

  it("uses the documented default base URL only when nothing else is set, and says so", () => {
    vi.stubEnv("SERVICE_BASE_URL", "");
    const defaulted = new PersonaClient({ apiKey: api.apiKey, personaId: api.personaId });
    expect(defaulted.baseUrl).toBe(DEFAULT_BASE_URL);
    expect(defaulted.baseUrlSource).toBe("default");
  });

  it("refuses a missing key or persona before any request", async () => {
    vi.stubEnv("SERVICE_API_KEY", "");
    vi.stubEnv("SERVICE_PERSONA_ID", "");
    const server = await startScriptedServer([{ status: 200, body: "{}" }]);
    try {
      expect(
        () => new PersonaClient({ personaId: api.personaId, baseUrl: server.baseUrl }),
      ).toThrow(
        new ConfigurationError(
          "no API key: pass the apiKey option or set SERVICE_API_KEY (docs/API.md §5.4)",
        ),
      );
      expect(() => new PersonaClient({ apiKey: api.apiKey, baseUrl: server.baseUrl })).toThrow(
        /no persona ID: pass the personaId option or set SERVICE_PERSONA_ID/u,
      );
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it("refuses a base URL that already ends in /api/v1 (no silent double prefix)", async () => {
    const server = await startScriptedServer([{ status: 200, body: "{}" }]);
    try {
      for (const baseUrl of [`${server.baseUrl}/api/v1`, `${server.baseUrl}/api/v1/`]) {
        expect(
          () => new PersonaClient({ apiKey: api.apiKey, personaId: api.personaId, baseUrl }),
        ).toThrow(ConfigurationError);
      }
      vi.stubEnv("SERVICE_BASE_URL", `${server.baseUrl}/api/v1`);
      expect(() => new PersonaClient({ apiKey: api.apiKey, personaId: api.personaId })).toThrow(
        /SERVICE_BASE_URL must be the site origin without \/api\/v1/u,
      );
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it("throws ConnectionError, naming the base URL, when nothing listens", async () => {
    const port = await closedPort();
    const unreachable = new PersonaClient({
      apiKey: api.apiKey,
      personaId: api.personaId,
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 0,
    });
    const error = await failure(
      unreachable.generate({ messages: [{ role: "user", content: "Hi" }] }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.status).toBeUndefined();
    expect(error.message).toContain(`could not reach http://127.0.0.1:${port}`);
    expect(error.requestId).toMatch(UUID);
    expectNoKey(error, api.apiKey);
  });
});
