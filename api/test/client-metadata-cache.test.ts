import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logging/logger.js";
import { ClientMetadataDocuments } from "../src/oauth/client-metadata-document.js";
import { createPublicAddressAgent } from "../src/oauth/public-address-agent.js";
import {
  type DocumentHost,
  makeTestCertificates,
  startDocumentHost,
} from "./support/document-host.js";
import { APP_CALLBACK } from "./support/oauth-app.js";

let host: DocumentHost;
let ca: string;

beforeAll(async () => {
  const certificates = makeTestCertificates();
  ca = certificates.ca;
  host = await startDocumentHost(certificates);
});
afterAll(() => host.close());

/** A resolver over a real HTTPS host, with a clock the test moves. */
function resolver() {
  const clock = { now: 1_000_000 };
  const fetched: OAuthClientInformationFull[] = [];
  const documents = new ClientMetadataDocuments({
    dispatcher: createPublicAddressAgent({ allowPrivate: true, ca, connectTimeoutMs: 2000 }),
    timeoutMs: 2000,
    logger: createLogger("silent"),
    onFetched: async (client) => {
      fetched.push(client);
    },
    now: () => clock.now,
  });
  return { documents, clock, fetched };
}

function serve(path: string, name: string, maxAge: number): string {
  const clientId = `${host.origin}${path}`;
  host.documents.set(path, {
    headers: { "cache-control": `max-age=${maxAge}` },
    body: { client_id: clientId, client_name: name, redirect_uris: [APP_CALLBACK] },
  });
  return clientId;
}

describe("client metadata documents: cache, coalescing and stale copies", () => {
  it("fetches concurrent lookups of one URL once, and again when max-age has passed", async () => {
    const { documents, clock, fetched } = resolver();
    const clientId = serve("/cache/coalesced.json", "First", 120);
    const clients = await Promise.all([1, 2, 3].map(() => documents.resolve(clientId)));
    expect(clients.map((client) => client.client_name)).toEqual(["First", "First", "First"]);
    expect(host.hits.get("/cache/coalesced.json")).toBe(1);
    expect(fetched).toHaveLength(1);
    expect(fetched[0]).toMatchObject({ client_id: clientId, token_endpoint_auth_method: "none" });

    clock.now += 119_000;
    serve("/cache/coalesced.json", "Second", 120);
    expect((await documents.resolve(clientId)).client_name).toBe("First");
    clock.now += 2_000;
    expect((await documents.resolve(clientId)).client_name).toBe("Second");
    expect(host.hits.get("/cache/coalesced.json")).toBe(2);
    expect(fetched).toHaveLength(2);
  });

  it("uses the earlier copy when the host fails (up to 24 h), never when it serves a bad document", async () => {
    const { documents, clock } = resolver();
    const clientId = serve("/cache/stale.json", "Kept", 60);
    await documents.resolve(clientId);

    host.documents.set("/cache/stale.json", { status: 503, body: "" });
    clock.now += 61_000;
    expect((await documents.resolve(clientId)).client_name).toBe("Kept");
    clock.now += 86_400_000;
    await expect(documents.resolve(clientId)).rejects.toThrow(/answered HTTP 503/u);

    const other = serve("/cache/turned-bad.json", "Good", 60);
    await documents.resolve(other);
    host.documents.set("/cache/turned-bad.json", {
      body: { client_id: `${other}?x`, redirect_uris: [APP_CALLBACK] },
    });
    clock.now += 61_000;
    await expect(documents.resolve(other)).rejects.toThrow(/client_id that is not its own URL/u);
  });
});
