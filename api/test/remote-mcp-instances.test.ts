import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import type { Services } from "../src/services.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore } from "./support/test-store.js";

// A connected app's revocation, made anywhere, must reach every instance's
// token cache within a second, as an API key's does (cache-invalidation.test.ts).

const WITHIN_MS = 1_000;
/** One public origin for both instances, so a token's resource is theirs alike. */
const PUBLIC_URL = "http://localhost:8791";
const CALLBACK = "http://127.0.0.1:53682/callback";

async function listTools(instance: SpawnedService, token: string): Promise<number> {
  const response = await fetch(`${instance.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await response.arrayBuffer();
  return response.status;
}

await describeEachDialect("a connected app's revocation reaches every instance", (database) => {
  let store: Services;
  let directory: string;
  const instances: SpawnedService[] = [];
  beforeAll(async () => {
    store = await openStore(database.url);
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-oauth-"));
    for (const name of ["a", "b"]) {
      instances.push(
        await spawnService(directory, {
          PERSONA_DATABASE_URL: database.url,
          PERSONA_SEED_DEMO: "false",
          PERSONA_PUBLIC_URL: PUBLIC_URL,
          PERSONA_INSTANCE_ID: `oauth-${name}`,
          PERSONA_ENV_FILE: path.join(directory, `${name}.env`),
        }),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await closeStore(store);
    if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
  });

  it("refuses a revoked grant's access token on every instance within a second", async () => {
    const customer = await createCustomer(store, { balanceMicros: 1_000_000 });
    const clientId = randomUUID();
    await store.oauth.registerClient({
      client_id: clientId,
      client_name: "Instances test app",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
    } as OAuthClientInformationFull);
    const code = await store.oauth.approve({
      clientId,
      accountId: customer.accountId,
      personaId: customer.persona.id,
      resource: `${PUBLIC_URL}/mcp`,
      redirectUri: CALLBACK,
      codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    });
    const exchange = await store.oauth.exchangeCode(clientId, code, CALLBACK, undefined);
    if (!exchange.ok) throw new Error(`exchange failed: ${exchange.reason}`);
    const token = exchange.tokens.accessToken;
    // Both instances hold the token in memory now.
    for (const instance of instances) {
      expect(await listTools(instance, token)).toBe(200);
      expect(await listTools(instance, token)).toBe(200);
    }
    const revokedAt = Date.now();
    expect(await store.oauth.revokeGrant(exchange.grant.id)).toBe(true);
    const refused = new Set<number>();
    while (Date.now() - revokedAt < 5_000 && refused.size < instances.length) {
      for (const [index, instance] of instances.entries()) {
        if (!refused.has(index) && (await listTools(instance, token)) === 401) refused.add(index);
      }
      if (refused.size < instances.length) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(refused.size).toBe(instances.length);
    expect(Date.now() - revokedAt).toBeLessThan(WITHIN_MS);
  });
});
