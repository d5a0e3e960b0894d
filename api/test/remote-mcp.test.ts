import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createPersonaServer } from "@persona-reply/mcp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInClient } from "./support/login-consent.js";
import { approveInBrowser, codeOf, MemoryOAuthProvider } from "./support/oauth-app.js";
import type { PageClient } from "./support/page-client.js";
import { startTestService, type TestService } from "./support/test-service.js";

let service: TestService;
let browser: PageClient;
let logLines: string[];

beforeAll(async () => {
  service = await startTestService();
  browser = await signedInClient(service);
  logLines = [];
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
  await transport.finishAuth(codeOf(answer));
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

function callWith(token: string, headers: Record<string, string> = {}): Promise<Response> {
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
      method: "tools/call",
      params: { name: "generate", arguments: { message: "Hi" } },
    }),
  });
}
