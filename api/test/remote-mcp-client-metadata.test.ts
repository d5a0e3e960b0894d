import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DocumentHost,
  makeTestCertificates,
  startDocumentHost,
  startSilentHost,
  type TestCertificates,
} from "./support/document-host.js";
import { signedInClient } from "./support/login-consent.js";
import {
  APP_CALLBACK,
  approveInBrowser,
  codeOf,
  MemoryOAuthProvider,
} from "./support/oauth-app.js";
import type { PageClient } from "./support/page-client.js";
import { describeEachDialect } from "./support/test-databases.js";
import { startTestService, type TestService } from "./support/test-service.js";

/** The fetch deadline of these tests (instead of 5 s), so the silent host's case is quick. */
const DEADLINE_MS = 600;

let certificates: TestCertificates;
let host: DocumentHost;

beforeAll(async () => {
  certificates = makeTestCertificates();
  host = await startDocumentHost(certificates);
});
afterAll(() => host.close());

/** Serves a document at `path` and returns its URL, the client ID. */
function publish(path: string, fields: Record<string, unknown> = {}, origin = host.origin): string {
  const clientId = `${origin}${path}`;
  host.documents.set(path, {
    headers: { "cache-control": "max-age=300" },
    body: {
      client_id: clientId,
      client_name: "Document agent",
      redirect_uris: [APP_CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...fields,
    },
  });
  return clientId;
}

const mcpUrl = (service: TestService) => new URL(`${service.url}/mcp`);

/** A service whose document fetch trusts the test CA, with a short deadline. */
async function startWith(mode: string): Promise<TestService> {
  return startTestService(
    { PERSONA_OAUTH_CLIENT_METADATA: mode },
    { overrides: { clientMetadata: { ca: certificates.ca, timeoutMs: DEADLINE_MS } } },
  );
}

async function serverMetadata(service: TestService): Promise<Record<string, unknown>> {
  const response = await fetch(`${service.url}/.well-known/oauth-authorization-server`);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * The SDK client's first connection with a URL client ID: a 401, discovery,
 * and the authorization URL it would open (set on the provider).
 */
async function startAuthorization(service: TestService, clientId: string) {
  const provider = new MemoryOAuthProvider("ignored: the document names the app", clientId);
  const transport = new StreamableHTTPClientTransport(mcpUrl(service), { authProvider: provider });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await expect(client.connect(transport)).rejects.toThrow(/unauthorized/iu);
  if (provider.authorizationUrl === undefined) throw new Error("no authorization URL");
  return { provider, transport, authorizationUrl: provider.authorizationUrl };
}

/** Opens an authorization URL as the browser would; the service's answer when it is an error. */
async function openAuthorization(browser: PageClient, authorizationUrl: URL) {
  const answer = await browser.request(authorizationUrl.pathname + authorizationUrl.search);
  return {
    status: answer.status,
    body: answer.status === 302 ? undefined : ((await answer.json()) as Record<string, string>),
    location: answer.headers.get("location"),
  };
}

/** An authorization request of the SDK's shape, built by hand. */
function authorizeUrl(service: TestService, clientId: string): URL {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: APP_CALLBACK,
    code_challenge: "c".repeat(43),
    code_challenge_method: "S256",
  });
  return new URL(`${service.url}/authorize?${query}`);
}

/** `POST /token` for a client: what the token endpoint's client authentication answers. */
async function tokenAnswer(service: TestService, clientId: string) {
  const response = await fetch(`${service.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: "not-a-code",
      code_verifier: "v".repeat(43),
      client_id: clientId,
      redirect_uri: APP_CALLBACK,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

async function usageCount(service: TestService): Promise<number> {
  const rows = await service.services.database
    .selectFrom("usage_records")
    .select("id")
    .where("account_id", "=", service.accountId)
    .execute();
  return rows.length;
}

async function clientIds(service: TestService): Promise<string[]> {
  const rows = await service.services.database
    .selectFrom("oauth_clients")
    .select("client_id")
    .orderBy("client_id")
    .execute();
  return rows.map((row) => row.client_id);
}

await describeEachDialect(
  "remote MCP with a URL client ID (client ID metadata document), end to end with the MCP SDK's client",
  (database) => {
    let service: TestService;
    let browser: PageClient;
    const logLines: string[] = [];

    beforeAll(async () => {
      service = await startTestService(
        {
          PERSONA_OAUTH_CLIENT_METADATA: "any",
          PERSONA_DATABASE_URL: database.url,
          PERSONA_LOG_LEVEL: "info",
        },
        {
          overrides: { clientMetadata: { ca: certificates.ca, timeoutMs: DEADLINE_MS } },
          log: (line) => logLines.push(line),
        },
      );
      browser = await signedInClient(service);
    });
    afterAll(() => service?.stop());

    it("advertises client ID metadata documents next to the SDK's metadata", async () => {
      const metadata = await serverMetadata(service);
      expect(metadata.client_id_metadata_document_supported).toBe(true);
      expect(metadata.issuer).toBe(`${service.url}/`);
      expect(metadata.registration_endpoint).toBe(`${service.url}/register`);
      expect(metadata.code_challenge_methods_supported).toEqual(["S256"]);
    });

    it("connects without registering: consent names the document's host, calls are billed once", async () => {
      const path = `/apps/${database.dialect}/client.json`;
      const clientId = publish(path);
      const clientsBefore = await clientIds(service);
      const { provider, transport, authorizationUrl } = await startAuthorization(service, clientId);
      expect(authorizationUrl.searchParams.get("client_id")).toBe(clientId);
      expect(provider.client?.client_id).toBe(clientId);

      // The consent page: the document's name, and its host as what the person can check.
      const opened = await openAuthorization(browser, authorizationUrl);
      expect(opened.status).toBe(302);
      const consent = await browser.page(opened.location ?? "");
      expect(consent.status).toBe(200);
      expect(consent.html).toMatch(/id="client-name">Document agent</u);
      expect(consent.html).toContain(`id="client-host"><strong>127.0.0.1:${host.port}</strong>`);

      const code = codeOf(await approveInBrowser(browser, authorizationUrl, service.persona.id));
      await transport.finishAuth(code);
      expect(provider.saved?.access_token).toBeDefined();

      const client = new Client({ name: "test-agent", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(mcpUrl(service), { authProvider: provider }),
      );
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        "generate",
        "personify",
      ]);
      const before = await usageCount(service);
      const reply = await client.callTool({ name: "generate", arguments: { message: "Hi" } });
      expect(reply.isError).toBeFalsy();
      const rows = await service.services.database
        .selectFrom("usage_records")
        .select(["endpoint", "status", "charged_micros"])
        .where("account_id", "=", service.accountId)
        .execute();
      expect(rows).toHaveLength(before + 1);
      const last = rows.filter((row) => row.endpoint === "generate");
      expect(last).toHaveLength(1);
      expect(Number(last[0]?.charged_micros)).toBeGreaterThan(0);
      await client.close();

      // No registration: the only new client is the document's (upserted on its fetch).
      expect(await clientIds(service)).toEqual([...clientsBefore, clientId].sort());
      const logged = (path: string) => logLines.some((line) => line.includes(`"url":"${path}"`));
      expect(logged("/token")).toBe(true);
      expect(logged("/register")).toBe(false);
      // Authorize twice, consent twice, token once: one fetch, the rest from the cache.
      expect(host.hits.get(path)).toBe(1);

      const keys = await browser.page("/keys");
      expect(keys.html).toContain("Document agent");
    });

    it("updates a URL client's record in place (insert, then update on conflict)", async () => {
      const clientId = `${host.origin}/apps/${database.dialect}/upsert.json`;
      const base = { client_id: clientId, redirect_uris: [APP_CALLBACK] };
      await service.services.oauth.upsertClient({ ...base, client_name: "First name" });
      await service.services.oauth.upsertClient({ ...base, client_name: "Second name" });
      const rows = await service.services.database
        .selectFrom("oauth_clients")
        .select(["client_name", "metadata"])
        .where("client_id", "=", clientId)
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]?.client_name).toBe("Second name");
      expect(JSON.parse(rows[0]?.metadata ?? "{}").client_name).toBe("Second name");
    });
  },
);

describe("hostile client metadata documents are refused with an OAuth error, nothing charged", () => {
  let service: TestService;
  let browser: PageClient;
  let usageBefore: number;

  beforeAll(async () => {
    service = await startWith("any");
    browser = await signedInClient(service);
    usageBefore = await usageCount(service);
  });
  afterAll(() => service.stop());

  /**
   * Authorization through the SDK's client (or, for a client ID the SDK
   * itself refuses to use, a request of the same shape) is refused before
   * consent with `error`; so are the token endpoint and the consent page.
   */
  async function expectRefused(
    clientId: string,
    error: string,
    description: RegExp,
    viaSdk = true,
  ) {
    const authorizationUrl = viaSdk
      ? (await startAuthorization(service, clientId)).authorizationUrl
      : authorizeUrl(service, clientId);
    const answer = await openAuthorization(browser, authorizationUrl);
    expect(answer.status).toBe(400);
    expect(answer.body?.error).toBe(error);
    expect(answer.body?.error_description).toMatch(description);
    if (error === "invalid_client") {
      const token = await tokenAnswer(service, clientId);
      expect(token.status).toBe(400);
      expect(token.body.error).toBe("invalid_client");
      expect(token.body.error_description).toMatch(description);
    }
    // Nor does the consent page take it.
    const consent = await browser.page(
      `/oauth/consent?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: APP_CALLBACK,
        code_challenge: "c".repeat(43),
        resource: `${service.url}/mcp`,
      })}`,
    );
    expect(consent.status).toBe(400);
    expect(await clientIds(service)).not.toContain(clientId);
  }

  it("refuses a document whose client_id is not its URL", async () => {
    const clientId = publish("/hostile/mismatch.json", {
      client_id: `${host.origin}/hostile/other.json`,
    });
    await expectRefused(clientId, "invalid_client", /client_id that is not its own URL/u);
  });

  it("refuses a redirect_uri the document does not list", async () => {
    const clientId = publish("/hostile/redirect.json", {
      redirect_uris: ["https://elsewhere.example/callback"],
    });
    const { authorizationUrl } = await startAuthorization(service, clientId);
    const answer = await openAuthorization(browser, authorizationUrl);
    expect(answer.status).toBe(400);
    expect(answer.body?.error).toBe("invalid_request");
    expect(answer.body?.error_description).toMatch(/redirect_uri/u);
  });

  it("refuses a document listing a redirect_uri that is neither https nor loopback", async () => {
    const clientId = publish("/hostile/plain-http.json", {
      redirect_uris: [APP_CALLBACK, "http://attacker.example/callback"],
    });
    await expectRefused(clientId, "invalid_client", /neither https nor http on a loopback/u);
  });

  it("refuses a document larger than 5 KB, read as a stream", async () => {
    const clientId = publish("/hostile/large.json", { padding: "x".repeat(6000) });
    await expectRefused(clientId, "invalid_client", /larger than 5120 bytes/u);
  });

  it("refuses a document that is not JSON", async () => {
    host.documents.set("/hostile/text.json", { body: "<html>hello</html>" });
    await expectRefused(`${host.origin}/hostile/text.json`, "invalid_client", /is not JSON/u);
  });

  it("refuses a document with a client secret", async () => {
    const clientId = publish("/hostile/secret.json", { client_secret: "s3cret-value" });
    await expectRefused(clientId, "invalid_client", /client secret/u);
  });

  it("does not follow a redirect", async () => {
    const target = publish("/hostile/target.json");
    host.documents.set("/hostile/moved.json", {
      status: 302,
      headers: { location: target },
      body: "",
    });
    await expectRefused(`${host.origin}/hostile/moved.json`, "invalid_client", /redirect \(302\)/u);
    expect(host.hits.get("/hostile/target.json")).toBeUndefined();
  });

  it("refuses a client_id URL without a path, with dot segments or with credentials", async () => {
    await expectRefused(`${host.origin}/`, "invalid_client", /must have a path/u, false);
    await expectRefused(
      `${host.origin}/apps/../client.json`,
      "invalid_client",
      /must not have \. or \.\. path segments/u,
      false,
    );
    await expectRefused(
      `https://user:pw@127.0.0.1:${host.port}/client.json`,
      "invalid_client",
      /user name or password/u,
      false,
    );
  });

  it("gives up on a host that accepts and never answers, at the deadline", async () => {
    const silent = await startSilentHost();
    try {
      const started = Date.now();
      await expectRefused(
        `https://127.0.0.1:${silent.port}/slow/client.json`,
        "invalid_client",
        new RegExp(`no answer within ${DEADLINE_MS} ms`, "u"),
      );
      // authorize, token and consent: three fetches, each cut at the deadline.
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS * 3 + 3000);
    } finally {
      await silent.close();
    }
  });

  it("charged nothing and connected no app for any of them", async () => {
    expect(await usageCount(service)).toBe(usageBefore);
    const grants = await service.services.database
      .selectFrom("oauth_grants")
      .select("id")
      .where("account_id", "=", service.accountId)
      .execute();
    expect(grants).toHaveLength(0);
  });
});

describe("PERSONA_OAUTH_CLIENT_METADATA=public: the SSRF guard", () => {
  let service: TestService;
  let browser: PageClient;

  beforeAll(async () => {
    service = await startWith("public");
    browser = await signedInClient(service);
  });
  afterAll(() => service.stop());

  it("refuses a document on a loopback address, by IP literal and by a name resolving to it", async () => {
    expect((await serverMetadata(service)).client_id_metadata_document_supported).toBe(true);
    for (const origin of [host.origin, `https://localhost:${host.port}`]) {
      const path = `/guarded/${origin.includes("localhost") ? "name" : "literal"}.json`;
      const clientId = publish(path, {}, origin);
      const { authorizationUrl } = await startAuthorization(service, clientId);
      const answer = await openAuthorization(browser, authorizationUrl);
      expect(answer.status).toBe(400);
      expect(answer.body?.error).toBe("invalid_client");
      const hostname = new URL(origin).hostname;
      expect(answer.body?.error_description).toContain(`${hostname} is not a public address`);
      // What a name resolves to is not told to the client.
      if (hostname === "localhost") {
        expect(answer.body?.error_description).not.toMatch(/127\.0\.0\.1|::1/u);
      }
      expect(host.hits.get(path)).toBeUndefined();
    }
  });
});

describe("PERSONA_OAUTH_CLIENT_METADATA=off", () => {
  let service: TestService;
  let browser: PageClient;

  beforeAll(async () => {
    service = await startWith("off");
    browser = await signedInClient(service);
  });
  afterAll(() => service.stop());

  it("does not advertise URL client IDs, refuses them, and the SDK's client registers instead", async () => {
    expect((await serverMetadata(service)).client_id_metadata_document_supported).toBeUndefined();
    const clientId = publish("/off/client.json");
    const answer = await openAuthorization(browser, authorizeUrl(service, clientId));
    expect(answer.status).toBe(400);
    expect(answer.body?.error).toBe("invalid_client");
    expect(answer.body?.error_description).toMatch(/turned off/u);
    expect((await tokenAnswer(service, clientId)).body.error).toBe("invalid_client");
    expect(host.hits.get("/off/client.json")).toBeUndefined();

    const { provider } = await startAuthorization(service, clientId);
    expect(provider.client?.client_id).not.toBe(clientId);
    expect(await clientIds(service)).toContain(provider.client?.client_id);
  });
});
