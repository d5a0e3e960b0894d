import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { signedInClient } from "./support/login-consent.js";
import { approveInBrowser, codeOf, MemoryOAuthProvider } from "./support/oauth-app.js";
import type { PageClient } from "./support/page-client.js";
import { describeEachDialect } from "./support/test-databases.js";
import { startTestService, type TestService } from "./support/test-service.js";

// A tool call of /mcp is relayed to /api/v1 with the connected app's access
// token: its usage row names the app's grant (migration 0030), whether the
// call was served or refused, and an API key's row names none.

await describeEachDialect("a connected app's usage rows name its grant", (database) => {
  let service: TestService;
  let browser: PageClient;

  beforeAll(async () => {
    service = await startTestService({ PERSONA_DATABASE_URL: database.url });
    browser = await signedInClient(service);
  });
  afterAll(async () => {
    await service?.stop();
  });

  /** Connects an app with the MCP SDK's client: 401, registration, consent, code exchange. */
  async function connectApp(name: string): Promise<Client> {
    const url = new URL(`${service.url}/mcp`);
    const provider = new MemoryOAuthProvider(name);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name, version: "1.0.0" }).connect(transport)).rejects.toThrow(
      /unauthorized/iu,
    );
    const answer = await approveInBrowser(
      browser,
      provider.authorizationUrl ?? "",
      service.persona.id,
    );
    await transport.finishAuth(codeOf(answer));
    const client = new Client({ name, version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    return client;
  }

  function rowsAfter(createdAfter: string) {
    return service.services.database
      .selectFrom("usage_records")
      .select(["endpoint", "status", "api_key_id", "oauth_grant_id", "request_id"])
      .where("account_id", "=", service.accountId)
      .where("created_at", ">", createdAfter)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
  }

  it("writes the grant's id on a served and a refused tool call, and none on an API key's call", async () => {
    const client = await connectApp("Usage agent");
    const [grant] = await service.services.oauth.listGrants(service.accountId);
    expect(grant?.clientName).toBe("Usage agent");
    const grantId = grant?.id ?? "";
    const since = new Date(Date.now() - 1).toISOString();

    const served = await client.callTool({ name: "generate", arguments: { message: "Hi" } });
    expect(served.isError).toBeFalsy();
    const rewritten = await client.callTool({
      name: "personify",
      arguments: { raw: "We ship on Monday." },
    });
    expect(rewritten.isError).toBeFalsy();
    const keyCall = await service.post("/api/v1/generate", {
      personaId: service.persona.id,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(keyCall.status).toBe(200);
    // A refusal is written by admission: one request a minute, and the app made two.
    await service.services.billing.limits.setForAccount(service.accountId, { minute: 1 });
    try {
      const refused = await client.callTool({ name: "generate", arguments: { message: "Again" } });
      expect(refused.isError).toBe(true);
    } finally {
      await service.services.billing.limits.setForAccount(service.accountId, { minute: null });
    }
    await client.close();

    const rows = await rowsAfter(since);
    expect(
      rows.map((row) => [row.endpoint, row.status, row.api_key_id, row.oauth_grant_id]),
    ).toEqual([
      ["generate", 200, null, grantId],
      ["personify", 200, null, grantId],
      ["generate", 200, expect.any(String), null],
      ["generate", 429, null, grantId],
    ]);

    // Read back as a usage record (what the archive's reader gives too).
    const records = await service.services.usage.list(service.accountId);
    const ofApp = records.filter((record) => record.oauthGrantId === grantId);
    expect(ofApp.map((record) => [record.endpoint, record.status])).toEqual(
      expect.arrayContaining([
        ["generate", 200],
        ["personify", 200],
        ["generate", 429],
      ]),
    );
  });
});
