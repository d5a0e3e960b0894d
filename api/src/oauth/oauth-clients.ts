import { InvalidClientError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Logger } from "../logging/logger.js";
import { isUrlClientId } from "./client-id-url.js";
import { ClientMetadataDocuments } from "./client-metadata-document.js";
import type { OAuthStore } from "./oauth-store.js";
import { createPublicAddressAgent } from "./public-address-agent.js";

/**
 * The clients the authorization server knows: those registered dynamically
 * (RFC 7591, stored), and — unless client ID metadata documents are turned
 * off — those whose `client_id` is an https URL, described by the document
 * at that URL (client-metadata-document.ts), whose record is kept up to
 * date on every fetch so grants and the Keys page can name it.
 */
export class OAuthClients {
  /**
   * @param documents - the document resolver, or undefined when
   *   `PERSONA_OAUTH_CLIENT_METADATA=off`
   * @param release - closes what the resolver fetches through (its connections)
   */
  constructor(
    private readonly store: OAuthStore,
    private readonly documents: ClientMetadataDocuments | undefined,
    private readonly release: () => Promise<void> = async () => undefined,
  ) {}

  /** Closes the documents' connections (the server's stop). */
  close(): Promise<void> {
    return this.release();
  }

  /** Whether URL client IDs are accepted (and advertised in the authorization-server metadata). */
  get documentsSupported(): boolean {
    return this.documents !== undefined;
  }

  /**
   * A client's information, or undefined for an unknown registered client.
   *
   * @throws {InvalidClientError} for a URL client ID whose document cannot be
   *   used, or when URL client IDs are turned off (the description says why)
   */
  async find(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (!isUrlClientId(clientId)) return this.store.findClient(clientId);
    if (this.documents === undefined) {
      throw new InvalidClientError(
        "URL client IDs (client ID metadata documents) are turned off on this server: register the client instead",
      );
    }
    return this.documents.resolve(clientId);
  }
}

/** Test and tool seams of the client metadata documents' fetch. */
export interface ClientMetadataFetchOverrides {
  /** Certificate authorities (PEM) trusted instead of Node's bundle: a test's own CA. */
  ca?: string;
  /** Deadline of one fetch in milliseconds instead of 5 s. */
  timeoutMs?: number;
}

/** Deadline of one client metadata document fetch, connection to last byte. */
const DOCUMENT_TIMEOUT_MS = 5_000;

/**
 * The clients of the authorization server as `PERSONA_OAUTH_CLIENT_METADATA`
 * says: documents fetched through the SSRF guard (`public`), through any
 * address (`any`), or none (`off`).
 */
export function createOAuthClients(
  mode: "public" | "any" | "off",
  store: OAuthStore,
  logger: Logger,
  overrides: ClientMetadataFetchOverrides = {},
): OAuthClients {
  if (mode === "off") return new OAuthClients(store, undefined);
  const timeoutMs = overrides.timeoutMs ?? DOCUMENT_TIMEOUT_MS;
  const dispatcher = createPublicAddressAgent({
    allowPrivate: mode === "any",
    connectTimeoutMs: timeoutMs,
    ...(overrides.ca === undefined ? {} : { ca: overrides.ca }),
  });
  const documents = new ClientMetadataDocuments({
    dispatcher,
    timeoutMs,
    logger,
    onFetched: (client) => store.upsertClient(client),
  });
  return new OAuthClients(store, documents, () => dispatcher.close());
}
