import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createPersonaServer } from "@persona-reply/mcp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInClient } from "./support/login-consent.js";
import {
  APP_CALLBACK,
  approveInBrowser,
  codeOf,
  MemoryOAuthProvider,
} from "./support/oauth-app.js";
import type { PageClient } from "./support/page-client.js";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
let browser: PageClient;

/** Every log line the service wrote, and every secret a test saw (none may be in a line). */
const logLines: string[] = [];
const secrets = new Set<string>();

beforeAll(async () => {
  service = await startTestService(
    { PERSONA_LOG_LEVEL: "debug" },
    { log: (line) => logLines.push(line) },
  );
  secrets.add(service.key);
  browser = await signedInClient(service);
});
afterAll(() => service.stop());

const mcpUrl = () => new URL(`${service.url}/mcp`);

async function usageRows() {
  return service.services.database
    .selectFrom("usage_records")
    .select(["endpoint", "status", "charged_micros", "persona_id"])
    .where("account_id", "=", service.accountId)
    .orderBy("created_at")
    .execute();
}

async function balance(): Promise<number> {
  const account = await service.services.database
    .selectFrom("accounts")
    .select("balance_micros")
    .where("id", "=", service.accountId)
    .executeTakeFirstOrThrow();
  return Number(account.balance_micros);
}

/** Connects an MCP client with the app's provider (tokens already saved). */
async function connected(provider: MemoryOAuthProvider): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
  return client;
}

/** The whole first connection: 401, discovery, registration, consent, code exchange. */
async function connectApp(personaId: string, name = "Test agent") {
  const provider = new MemoryOAuthProvider(name);
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  const first = new Client({ name: "test-agent", version: "1.0.0" });
  await expect(first.connect(transport)).rejects.toThrow(/unauthorized/iu);
  expect(provider.authorizationUrl).toBeDefined();
  const answer = await approveInBrowser(browser, provider.authorizationUrl ?? "", personaId);
  const code = codeOf(answer);
  secrets.add(code);
  await transport.finishAuth(code);
  for (const token of [provider.saved?.access_token, provider.saved?.refresh_token]) {
    if (token !== undefined) secrets.add(token);
  }
  return provider;
}

/** The tools persona-mcp lists, from the same definition. */
async function localTools() {
  const server = createPersonaServer({
    clientSource: () => {
      throw new Error("not called");
    },
    envFile: "/dev/null",
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "local", version: "1.0.0" });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  return tools;
}

describe("remote MCP over OAuth, end to end with the MCP SDK's client", () => {
  it("answers a call without a token with 401 and the protected-resource metadata URL", async () => {
    const response = await fetch(mcpUrl(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(
      `resource_metadata="${service.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
    ]) {
      const metadata = (await (await fetch(service.url + path)).json()) as Record<string, unknown>;
      expect(metadata.resource).toBe(`${service.url}/mcp`);
      expect(metadata.authorization_servers).toEqual([`${service.url}/`]);
    }
    const server = (await (
      await fetch(`${service.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(server.code_challenge_methods_supported).toEqual(["S256"]);
    expect(server.registration_endpoint).toBe(`${service.url}/register`);
  });

  it("registers, is approved, lists and calls both tools (billed once each), refreshes and is revoked", async () => {
    const provider = await connectApp(service.persona.id);
    const client = await connected(provider);
    const { tools } = await client.listTools();
    expect(tools).toEqual(await localTools());
    expect(tools.map((tool) => tool.name)).toEqual(["generate", "personify"]);

    const rowsBefore = (await usageRows()).length;
    const balanceBefore = await balance();
    const reply = await client.callTool({ name: "generate", arguments: { message: "Hi there" } });
    expect(reply.isError).toBeFalsy();
    expect(typeof (reply.structuredContent as { finalReply?: unknown }).finalReply).toBe("string");
    const rewrite = await client.callTool({
      name: "personify",
      arguments: { raw: "We ship on Monday." },
    });
    expect(rewrite.isError).toBeFalsy();
    const rows = (await usageRows()).slice(rowsBefore);
    expect(rows.map((row) => [row.endpoint, row.status, row.persona_id])).toEqual([
      ["generate", 200, service.persona.id],
      ["personify", 200, service.persona.id],
    ]);
    const charged = rows.reduce((sum, row) => sum + Number(row.charged_micros), 0);
    expect(charged).toBeGreaterThan(0);
    expect(await balance()).toBe(balanceBefore - charged);
    await client.close();

    // Listed on /keys as a connected app.
    const keys = await browser.page("/keys");
    expect(keys.html).toContain("Connected apps");
    expect(keys.html).toContain("Test agent");

    // Refresh: a new pair, the old refresh token spent.
    const before = provider.saved;
    const refreshed = await refresh(provider);
    expect(refreshed.access_token).not.toBe(before?.access_token);
    expect(refreshed.refresh_token).not.toBe(before?.refresh_token);
    provider.saveTokens(refreshed);
    const again = await connected(provider);
    expect((await again.listTools()).tools).toHaveLength(2);
    await again.close();

    // Revocation (RFC 7009): the next call is a 401.
    const revoked = await fetch(`${service.url}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: refreshed.access_token,
        client_id: String(provider.client?.client_id),
      }),
    });
    expect(revoked.status).toBe(200);
    expect((await callWith(refreshed.access_token)).status).toBe(401);
  });

  it("rate limits a connected app as a key without overrides: the account's limit, persona-mcp's error text", async () => {
    await service.services.billing.limits.setForAccount(service.accountId, { minute: 1 });
    try {
      const client = await connected(await connectApp(service.persona.id, "Limited agent"));
      const first = await client.callTool({ name: "generate", arguments: { message: "Hi" } });
      expect(first.isError).toBeFalsy();
      const second = await client.callTool({
        name: "generate",
        arguments: { message: "Hi again" },
      });
      expect(second.isError).toBe(true);
      const [block] = second.content as Array<{ type: string; text: string }>;
      // tool-error.ts of persona-mcp words a 429 so, with the service's own message.
      expect(block?.text).toMatch(
        /^The Persona Reply rate limit was reached \(HTTP 429, rate_limited\): rate limit reached \(1 requests per minute\)/u,
      );
      await client.close();
    } finally {
      await service.services.billing.limits.setForAccount(service.accountId, { minute: null });
    }
  });

  it("disconnects an app from /keys (CSRF-checked): its tokens answer 401", async () => {
    const provider = await connectApp(service.persona.id, "App to disconnect");
    const token = provider.saved?.access_token ?? "";
    expect((await callWith(token, {}, "tools/list")).status).toBe(200);
    const keys = await browser.page("/keys");
    const action = /action="(\/keys\/apps\/[^"]+\/revoke)"/u.exec(
      keys.html.slice(keys.html.indexOf("App to disconnect")),
    )?.[1];
    expect(action).toBeDefined();
    expect((await browser.postForm(action ?? "", {})).status).toBe(403);
    expect((await callWith(token, {}, "tools/list")).status).toBe(200);
    expect((await browser.postForm(action ?? "", { _csrf: keys.csrf })).status).toBe(303);
    expect((await callWith(token, {}, "tools/list")).status).toBe(401);
    expect((await browser.page("/keys")).html).toMatch(/App to disconnect[\s\S]*?revoked/u);
  });
});

/** A refresh-token grant, as the SDK's client sends it. */
async function refresh(
  provider: MemoryOAuthProvider,
  refreshToken = provider.saved?.refresh_token,
) {
  const response = await tokenRequest({
    grant_type: "refresh_token",
    refresh_token: String(refreshToken),
    client_id: String(provider.client?.client_id),
    resource: `${service.url}/mcp`,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    access_token: string;
    refresh_token: string;
    token_type: string;
  };
}

function tokenRequest(form: Record<string, string>): Promise<Response> {
  return fetch(`${service.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
}

function callWith(
  token: string,
  headers: Record<string, string> = {},
  method: "tools/call" | "tools/list" = "tools/call",
): Promise<Response> {
  return fetch(mcpUrl(), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      ...(method === "tools/call"
        ? { params: { name: "generate", arguments: { message: "Hi" } } }
        : {}),
    }),
  });
}

/** A client registered by RFC 7591, as a raw HTTP call. */
async function register(redirectUris: string[] = [APP_CALLBACK]): Promise<Response> {
  return fetch(`${service.url}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Hostile test app",
      redirect_uris: redirectUris,
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    }),
  });
}

/** One PKCE pair (RFC 7636 S256). */
function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

function authorizePath(clientId: string, challenge: string, values: Record<string, string> = {}) {
  return `/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: APP_CALLBACK,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s-1",
    resource: `${service.url}/mcp`,
    ...values,
  })}`;
}

/** Registration, consent and a code, by hand. */
async function approvedCode() {
  const client = (await (await register()).json()) as { client_id: string };
  const { verifier, challenge } = pkce();
  const answer = await approveInBrowser(
    browser,
    service.url + authorizePath(client.client_id, challenge),
    service.persona.id,
  );
  const code = codeOf(answer);
  secrets.add(code).add(verifier);
  return { clientId: client.client_id, verifier, code };
}

async function exchange(
  flow: { clientId: string; verifier: string; code: string },
  extra: Record<string, string> = {},
) {
  return tokenRequest({
    grant_type: "authorization_code",
    client_id: flow.clientId,
    code: flow.code,
    code_verifier: flow.verifier,
    redirect_uri: APP_CALLBACK,
    resource: `${service.url}/mcp`,
    ...extra,
  });
}

async function tokensOf(response: Response) {
  expect(response.status).toBe(200);
  const tokens = (await response.json()) as { access_token: string; refresh_token: string };
  secrets.add(tokens.access_token).add(tokens.refresh_token);
  return tokens;
}

async function expectOAuthError(response: Response, error: string, secrets: string[] = []) {
  expect(response.status).toBe(400);
  const text = await response.text();
  expect((JSON.parse(text) as { error: string }).error).toBe(error);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

/** A request with a Host header of our choosing (fetch cannot set one). */
function withHost(
  pathname: string,
  host: string,
  method = "GET",
  headers: Record<string, string> = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(pathname, service.url),
      { method, headers: { host, "content-type": "application/json", ...headers } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on("error", reject);
    request.end(method === "POST" ? "{}" : undefined);
  });
}

describe("hostile cases: each refused as OAuth 2.1 says, nothing charged", () => {
  let rowsBefore = 0;
  beforeAll(async () => {
    rowsBefore = (await usageRows()).length;
  });
  afterAll(async () => {
    expect((await usageRows()).length).toBe(rowsBefore);
  });

  it("refuses a wrong PKCE verifier (invalid_grant)", async () => {
    const flow = await approvedCode();
    await expectOAuthError(
      await exchange({ ...flow, verifier: pkce().verifier }),
      "invalid_grant",
      [flow.code],
    );
  });

  it("refuses a code used twice and revokes what the first use issued", async () => {
    const flow = await approvedCode();
    const first = await tokensOf(await exchange(flow));
    await expectOAuthError(await exchange(flow), "invalid_grant", [flow.code]);
    expect((await callWith(first.access_token)).status).toBe(401);
  });

  it("refuses a redirect URI that was not registered, or differs at the token endpoint", async () => {
    const client = (await (await register()).json()) as { client_id: string };
    const { challenge } = pkce();
    const unregistered = await browser.request(
      authorizePath(client.client_id, challenge, { redirect_uri: "https://evil.example/cb" }),
    );
    expect(unregistered.status).toBe(400);
    expect(unregistered.headers.get("location")).toBeNull();
    // Another port on the same loopback callback is fine (RFC 8252 §7.3).
    const otherPort = await browser.request(
      authorizePath(client.client_id, challenge, {
        redirect_uri: "http://127.0.0.1:40001/callback",
      }),
    );
    expect(otherPort.status).toBe(302);
    const flow = await approvedCode();
    await expectOAuthError(
      await exchange(flow, { redirect_uri: "http://127.0.0.1:40001/callback" }),
      "invalid_grant",
    );
    // Registration takes https or loopback redirect URIs only.
    await expectOAuthError(await register(["http://evil.example/cb"]), "invalid_client_metadata");
  });

  it("refuses another resource (invalid_target) and a token bound to another one (401)", async () => {
    const client = (await (await register()).json()) as { client_id: string };
    const { challenge } = pkce();
    const other = await browser.request(
      authorizePath(client.client_id, challenge, { resource: "https://other.example/mcp" }),
    );
    expect(other.status).toBe(302);
    expect(new URL(other.headers.get("location") ?? "").searchParams.get("error")).toBe(
      "invalid_target",
    );
    const flow = await approvedCode();
    await expectOAuthError(
      await exchange(flow, { resource: "https://other.example/mcp" }),
      "invalid_target",
    );
    const tokens = await tokensOf(await exchange({ ...(await approvedCode()) }));
    await service.services.database
      .updateTable("oauth_grants")
      .set({ resource: "https://other.example/mcp" })
      .where("id", "=", await grantOf(tokens.access_token))
      .execute();
    const response = await callWith(tokens.access_token);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("refuses an expired access token", async () => {
    const tokens = await tokensOf(await exchange(await approvedCode()));
    await service.services.database
      .updateTable("oauth_tokens")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("token_hash", "=", createHash("sha256").update(tokens.access_token).digest("hex"))
      .execute();
    const response = await callWith(tokens.access_token);
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain(tokens.access_token);
  });

  it("revokes the family when a spent refresh token is used again", async () => {
    const flow = await approvedCode();
    const first = await tokensOf(await exchange(flow));
    const second = await tokensOf(
      await tokenRequest({
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        client_id: flow.clientId,
      }),
    );
    expect((await callWith(second.access_token, {}, "tools/list")).status).toBe(200);
    await expectOAuthError(
      await tokenRequest({
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        client_id: flow.clientId,
      }),
      "invalid_grant",
      [first.refresh_token],
    );
    expect((await callWith(second.access_token)).status).toBe(401);
    await expectOAuthError(
      await tokenRequest({
        grant_type: "refresh_token",
        refresh_token: second.refresh_token,
        client_id: flow.clientId,
      }),
      "invalid_grant",
    );
  });

  it("redirects a denial with access_denied and no code", async () => {
    const client = (await (await register()).json()) as { client_id: string };
    const answer = await approveInBrowser(
      browser,
      service.url + authorizePath(client.client_id, pkce().challenge),
      service.persona.id,
      (form) => {
        form.decision = "deny";
      },
    );
    const location = new URL(answer.headers.get("location") ?? "");
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("s-1");
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("refuses a consent posted without its CSRF token, and issues no code", async () => {
    const client = (await (await register()).json()) as { client_id: string };
    const { challenge } = pkce();
    const answer = await approveInBrowser(
      browser,
      service.url + authorizePath(client.client_id, challenge),
      service.persona.id,
      (form) => {
        delete form._csrf;
      },
    );
    expect(answer.status).toBe(403);
    expect(answer.headers.get("location")).toBeNull();
  });

  it("refuses a foreign Host on /mcp and the OAuth endpoints (DNS rebinding)", async () => {
    for (const [path, method] of [
      ["/mcp", "POST"],
      ["/token", "POST"],
      ["/register", "POST"],
      ["/authorize", "GET"],
      ["/.well-known/oauth-authorization-server", "GET"],
    ] as const) {
      expect(await withHost(path, "evil.example", method)).toBe(403);
    }
    const host = new URL(service.url).host;
    expect(await withHost("/mcp", host, "POST", { origin: "http://evil.example" })).toBe(403);
    // A page of this host itself passes the guard (then needs a token).
    expect(await withHost("/mcp", host, "POST", { origin: service.url })).toBe(401);
  });

  it("accepts an access token on /mcp only, never on the API routes directly", async () => {
    const tokens = await tokensOf(await exchange(await approvedCode()));
    const direct = await service.post(
      "/api/v1/generate",
      { personaId: service.persona.id, messages: [{ role: "user", content: "Hi" }] },
      { headers: { "x-api-key": tokens.access_token } },
    );
    expect(direct.status).toBe(401);
    expect(await direct.text()).not.toContain(tokens.access_token);
  });
});

async function grantOf(accessToken: string): Promise<string> {
  const row = await service.services.database
    .selectFrom("oauth_tokens")
    .select("grant_id")
    .where("token_hash", "=", createHash("sha256").update(accessToken).digest("hex"))
    .executeTakeFirstOrThrow();
  return row.grant_id;
}

describe("logs", () => {
  it("writes no token, code, verifier or key to any log line", () => {
    expect(logLines.length).toBeGreaterThan(20);
    expect(secrets.size).toBeGreaterThan(20);
    const leaked = logLines.filter((line) => [...secrets].some((secret) => line.includes(secret)));
    expect(leaked).toEqual([]);
  });
});
