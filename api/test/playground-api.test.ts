import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AllowedEmailStore } from "../src/playground/allowed-email-store.js";
import { SessionStore } from "../src/playground/session-store.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { csrfIn, PageClient } from "./support/page-client.js";
import { startTestService, type TestService } from "./support/test-service.js";

// The playground's pages and its same-origin chat endpoints, over fetch
// against the in-process service (the browser test drives the same pages).

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

async function signedIn(accountId = service.accountId): Promise<PageClient> {
  // A session counts while its address is allowed for its account (as the operator set it).
  await new AllowedEmailStore(service.services.database).allow("owner@example.com", accountId);
  const { token } = await new SessionStore(service.services.database, 3_600_000).create({
    accountId,
    email: "owner@example.com",
    userAgent: "test",
  });
  const client = new PageClient(service.url);
  client.cookies.set("persona_session", token);
  return client;
}

/** The bodies the playground endpoints answer with (those of /generate and /personify, or an error). */
interface PlaygroundAnswer {
  status?: string;
  result?: { finalReply: string; chunks: string[]; replyChoices?: string[] };
  personified?: string;
  error?: { type: string; message: string };
  /** Added by the playground's endpoints only: the version that answered, never the target. */
  answeredBy?: { development: boolean; personaVersion: number };
}

async function callJson(client: PageClient, path: string, body: unknown, csrf: string) {
  const response = await client.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as PlaygroundAnswer };
}

describe("playground chat endpoints (session, CSRF, the account's personas)", () => {
  it("generates and personifies for the session's account, billed to its balance", async () => {
    const client = await signedIn();
    const { csrf, html } = await client.page("/playground");
    expect(html).toContain(service.persona.name);
    const before = (await service.services.billing.balances.balanceOf(service.accountId))
      ?.balanceMicros;
    const generated = await callJson(
      client,
      "/playground/api/generate",
      {
        personaId: service.persona.id,
        includeVariations: true,
        messages: [
          { role: "user", content: "Hello!" },
          { role: "assistant", content: "Hi there." },
          { role: "user", content: "Which herbs like shade?" },
        ],
      },
      csrf,
    );
    expect(generated.status).toBe(200);
    expect(generated.body.status).toBe("success");
    expect(generated.body.result?.finalReply.length).toBeGreaterThan(0);
    expect(Array.isArray(generated.body.result?.replyChoices)).toBe(true);
    // The playground says which version answered, and here that it is the development engine.
    expect(generated.body.answeredBy).toEqual({ development: true, personaVersion: 1 });
    const after = (await service.services.billing.balances.balanceOf(service.accountId))
      ?.balanceMicros;
    expect(after).toBeLessThan(before ?? 0);

    const personified = await callJson(
      client,
      "/playground/api/personify",
      { personaId: service.persona.id, raw: "The shed is locked on Sundays." },
      csrf,
    );
    expect(personified.status).toBe(200);
    expect(personified.body.personified).toMatch(/Sundays/u);
    expect(personified.body.answeredBy).toEqual({ development: true, personaVersion: 1 });
  });

  it("says on the page when the persona is on the development engine, without naming it", async () => {
    const client = await signedIn();
    const { html } = await client.page("/playground");
    expect(html).toContain('data-development="true"');
    expect(html).toMatch(/<div id="engine-notice" class="notice engine-notice">/u);
    expect(html).toContain("Development engine.");
    expect(html).not.toMatch(/offline-composer|upstream|README/u);
  });

  it("refuses without CSRF token, without session, for another account's persona, and without personify access", async () => {
    const client = await signedIn();
    const { csrf } = await client.page("/playground");
    const body = { personaId: service.persona.id, messages: [{ role: "user", content: "Hi" }] };

    expect((await callJson(client, "/playground/api/generate", body, "")).status).toBe(403);
    const anonymous = new PageClient(service.url);
    const anonymousCsrf = (await anonymous.page("/sign-in")).csrf;
    const noSession = await callJson(anonymous, "/playground/api/generate", body, anonymousCsrf);
    expect(noSession.status).toBe(401);
    expect(noSession.body.error?.message).toMatch(/not signed in/u);

    const other = await service.services.accounts.create("Someone else");
    const theirs = await service.services.personas.create(other.id, readExamplePersona());
    const foreign = await callJson(
      client,
      "/playground/api/generate",
      { ...body, personaId: theirs.id },
      csrf,
    );
    expect(foreign.status).toBe(404);

    const invalid = await callJson(
      client,
      "/playground/api/generate",
      { personaId: service.persona.id, messages: [] },
      csrf,
    );
    expect(invalid.status).toBe(422);

    const plain = await callJson(
      client,
      "/playground/api/personify",
      { personaId: service.plainPersona.id, raw: "Text" },
      csrf,
    );
    expect(plain.status).toBe(403);
  });
});

describe("/keys over plain HTTP", () => {
  it("keeps a new key for its own session only, sealed, and shows it once", async () => {
    const client = await signedIn();
    const other = await signedIn();
    const page = await client.page("/keys");
    const created = await client.postForm("/keys", { name: "sealed", _csrf: page.csrf });
    expect(created.status).toBe(303);
    // Waiting to be shown: the row holds no key, and another session of the account sees none.
    const rows = await service.services.database
      .selectFrom("playground_key_flashes")
      .selectAll()
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.sealed).not.toMatch(/prk_/u);
    expect((await other.page("/keys")).html).not.toContain('id="new-key"');
    const shown = await client.page("/keys");
    const key = /id="new-key">(prk_[0-9A-Za-z]{38})</u.exec(shown.html)?.[1] ?? "";
    expect((await service.services.keys.findByKey(key))?.name).toBe("sealed");
    expect(rows.some((row) => row.sealed.includes(key))).toBe(false);
    // Shown once: the next view lists it masked only.
    const again = await client.page("/keys");
    expect(again.html).not.toContain(key);
    expect(again.html).toContain(`prk_…${key.slice(-4)}`);
  });

  it("creates a key shown once, lists it masked, refuses forged forms, and revokes only the account's keys", async () => {
    const client = await signedIn();
    const page = await client.page("/keys");
    expect(page.response.headers.get("cache-control")).toBe("no-store");
    expect(page.response.headers.get("content-security-policy")).toContain("script-src 'self'");

    const forged = await client.postForm("/keys", { name: "forged", _csrf: "x" });
    expect(forged.status).toBe(403);

    const created = await client.postForm("/keys", { name: "  ci server  ", _csrf: page.csrf });
    // Post, redirect, get: the key is never in the redirect's URL.
    expect(created.status).toBe(303);
    expect(created.headers.get("location")).toBe("/keys");
    const shown = await client.page("/keys");
    expect(shown.status).toBe(200);
    const key = /id="new-key">(prk_[0-9A-Za-z]{38})</u.exec(shown.html)?.[1] ?? "";
    expect(key).not.toBe("");
    expect(shown.html).toContain("Key “ci server” created.");
    const listed = await client.page("/keys");
    expect(listed.html.includes(key)).toBe(false);
    expect(listed.html).toContain(`prk_…${key.slice(-4)}`);
    expect(listed.html).toContain("ci server");

    const tooLong = await client.postForm("/keys", {
      name: "x".repeat(101),
      _csrf: csrfIn(listed.html),
    });
    expect(tooLong.status).toBe(400);

    const other = await service.services.accounts.create("Other account");
    const { record: theirs } = await service.services.keys.create(other.id, "theirs");
    const foreign = await client.postForm(`/keys/${theirs.id}/revoke`, { _csrf: listed.csrf });
    expect(foreign.status).toBe(404);

    const mine = (await service.services.keys.list(service.accountId)).find(
      (entry) => entry.name === "ci server",
    );
    const revoked = await client.postForm(`/keys/${mine?.id}/revoke`, { _csrf: listed.csrf });
    expect(revoked.status).toBe(303);
    expect((await service.services.keys.findByKey(key))?.revokedAt).not.toBeNull();
  });
});

describe("a session follows its address's account", () => {
  it("stops working once the address belongs to another account, even with no session revoked", async () => {
    const client = await signedIn();
    const { csrf } = await client.page("/playground");
    const other = await service.services.accounts.create("Another customer");
    // The store alone, as a direct edit would: only the session check stands in the way.
    const emails = new AllowedEmailStore(service.services.database);
    await emails.allow("owner@example.com", other.id);
    try {
      const page = await client.request("/keys");
      expect(page.status).toBe(303);
      expect(page.headers.get("location")).toBe("/sign-in?return_to=%2Fkeys");
      const call = await callJson(
        client,
        "/playground/api/generate",
        { personaId: service.persona.id, messages: [{ role: "user", content: "Hi" }] },
        csrf,
      );
      // Its CSRF token was bound to the session, so the refusal may come from either check.
      expect([401, 403]).toContain(call.status);
      expect(call.body.error).toBeDefined();
    } finally {
      await emails.allow("owner@example.com", service.accountId);
    }
  });
});
