import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { startTestService, type TestService } from "./support/test-service.js";

// GET /api/v1/models and /api/v1/models/{id} through the official openai
// client: the personas a key may use, listed as models (api/README.md).

let service: TestService;
let client: OpenAI;
beforeAll(async () => {
  service = await startTestService();
  client = new OpenAI({ baseURL: `${service.url}/api/v1`, apiKey: service.key, maxRetries: 0 });
});
afterAll(() => service.stop());

/** A fresh account with one persona and a key at the beta defaults (25 a minute …). */
async function otherCustomer(limits?: { minute: number }) {
  const { services } = service;
  const account = await services.accounts.create("Other customer");
  await services.billing.balances.topUp(account.id, 1_000_000, "test funds");
  const persona = await services.personas.create(account.id, readExamplePersona());
  const { record, key } = await services.keys.create(account.id, "other key");
  if (limits !== undefined) await services.billing.limits.setForKey(record.id, limits);
  return { accountId: account.id, persona, key };
}

const clientWith = (apiKey: string) =>
  new OpenAI({ baseURL: `${service.url}/api/v1`, apiKey, maxRetries: 0 });

describe("the models list (completions dialect)", () => {
  it("models.list() gives the account's personas, the persona ID as the model ID", async () => {
    const before = Math.floor(Date.now() / 1000);
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((model) => model.id)).toEqual([service.persona.id, service.plainPersona.id]);
    for (const model of models) {
      expect(model.object).toBe("model");
      expect(model.owned_by).toBe(service.accountId);
      expect(Number.isInteger(model.created)).toBe(true);
      expect(model.created).toBeLessThanOrEqual(before);
      expect(model.created).toBeGreaterThan(before - 600);
    }
    const page = await client.models.list();
    expect(page.data).toHaveLength(2);
  });

  it("models.retrieve(id) gives one persona, and the ID works as the completions model", async () => {
    const model = await client.models.retrieve(service.persona.id);
    expect(model).toEqual({
      id: service.persona.id,
      object: "model",
      created: expect.any(Number),
      owned_by: service.accountId,
    });
    const completion = await client.completions.create({ model: model.id, prompt: "Hello!" });
    expect(completion.model).toBe(model.id);
  });

  it("answers another account's persona, and an ID that is no UUID, 404 like a missing one", async () => {
    const other = await otherCustomer();
    for (const id of [other.persona.id, "3e7b8c9d-1a2b-4c3d-8e4f-5a6b7c8d9e0f", "not-a-uuid"]) {
      const error = await client.models.retrieve(id).catch((caught: unknown) => caught);
      expect(error, id).toBeInstanceOf(OpenAI.NotFoundError);
      const notFound = error as InstanceType<typeof OpenAI.NotFoundError>;
      expect(notFound.param).toBe("model");
      expect(notFound.type).toBe("invalid_request_error");
      expect(notFound.message).toContain(id);
    }
    // And the other account lists only its own.
    const page = await clientWith(other.key).models.list();
    expect(page.data.map((model) => model.id)).toEqual([other.persona.id]);
  });

  it("answers 401 without a valid key and 403 for an account that is not active", async () => {
    await expect(clientWith("prk_wrong").models.list()).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
    const missing = await fetch(`${service.url}/api/v1/models`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: {
        message: expect.stringContaining("missing API key"),
        type: "authentication_error",
        param: null,
        code: null,
      },
    });
    const other = await otherCustomer();
    await service.services.accounts.setStatus(other.accountId, "suspended");
    for (const call of [
      () => clientWith(other.key).models.list(),
      () => clientWith(other.key).models.retrieve(other.persona.id),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    }
  });

  it("is not billed and does not use up the key's rate-limit windows", async () => {
    const other = await otherCustomer({ minute: 2 });
    const balanceBefore = await service.services.billing.balances.balanceOf(other.accountId);
    const otherClient = clientWith(other.key);
    for (let call = 0; call < 5; call++) {
      const response = await fetch(`${service.url}/api/v1/models`, {
        headers: { authorization: `Bearer ${other.key}` },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("ratelimit")).toBeNull();
      await otherClient.models.retrieve(other.persona.id);
    }
    // Both requests of the minute window are still there.
    for (let call = 0; call < 2; call++) {
      await otherClient.completions.create({ model: other.persona.id, prompt: "Hi" });
    }
    await expect(
      otherClient.completions.create({ model: other.persona.id, prompt: "Hi" }),
    ).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    // The usage holds the three completions only; the balance paid for the two answered.
    const usage = await service.services.usage.list(other.accountId);
    expect(usage.map((line) => [line.endpoint, line.status]).sort()).toEqual([
      ["completions", 200],
      ["completions", 200],
      ["completions", 429],
    ]);
    const balanceAfter = await service.services.billing.balances.balanceOf(other.accountId);
    const charged = usage.reduce((sum, line) => sum + line.costMicros, 0);
    expect(charged).toBeGreaterThan(0);
    expect((balanceBefore?.balanceMicros ?? 0) - (balanceAfter?.balanceMicros ?? 0)).toBe(charged);
  });

  it("answers other methods 405 with Allow: GET in the completions error object", async () => {
    for (const path of ["/api/v1/models", `/api/v1/models/${service.persona.id}`]) {
      const response = await service.post(path, {});
      expect(response.status, path).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, HEAD");
      const body = (await response.json()) as { error: { type: string; code: null } };
      expect(body.error.type).toBe("invalid_request_error");
      expect(body.error.code).toBeNull();
    }
  });
});
