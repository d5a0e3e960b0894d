import { InvalidClientError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import {
  type OAuthClientInformationFull,
  OAuthClientMetadataSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { type Dispatcher, fetch } from "undici";
import type { Logger } from "../logging/logger.js";
import { parseClientIdUrl } from "./client-id-url.js";
import { NotPublicAddressError } from "./public-address-agent.js";
import { isAllowedRedirectUri } from "./redirect-uri.js";

/** Largest document accepted, in bytes (read as a stream; a bigger one is refused). */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** How long a document is used without fetching it again when it says nothing (Cache-Control). */
const DEFAULT_FRESH_S = 600;
const MIN_FRESH_S = 60;
const MAX_FRESH_S = 86_400;
/** How long after its fetch a document is still used when fetching it again fails. */
const STALE_LIMIT_MS = 86_400_000;
/** Documents kept in memory at most (the least recently fetched leaves first). */
const MAX_CACHED = 1000;

/** Why a document could not be used; `transient` failures may fall back to a stale copy. */
class DocumentFailure extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

interface Cached {
  client: OAuthClientInformationFull;
  fetchedAt: number;
  freshUntil: number;
}

/** How {@link ClientMetadataDocuments} fetches. */
export interface ClientMetadataDocumentsOptions {
  /** The undici dispatcher the fetch goes through (the SSRF guard: public-address-agent.ts). */
  dispatcher: Dispatcher;
  /** Deadline of one fetch, connection to last byte, in milliseconds. */
  timeoutMs: number;
  /** Called with every document that was fetched and passed the checks (the client's record is updated). */
  onFetched: (client: OAuthClientInformationFull) => Promise<void>;
  logger: Logger;
  /** The clock, in epoch milliseconds. */
  now?: () => number;
}

/** Seconds a response may be used for: `Cache-Control: max-age`, clamped to 1 min … 24 h (10 min without). */
export function freshSecondsOf(cacheControl: string | null): number {
  const match = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/iu.exec(cacheControl ?? "");
  const seconds = match?.[1] === undefined ? DEFAULT_FRESH_S : Number(match[1]);
  return Math.min(MAX_FRESH_S, Math.max(MIN_FRESH_S, seconds));
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  let cause: unknown = error;
  for (let depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    // The address the name resolved to stays unsaid: a client must not learn this network's names.
    if (cause instanceof NotPublicAddressError) {
      return `refused: ${cause.host} is not a public address`;
    }
    if (cause.name === "TimeoutError" || cause.name === "ConnectTimeoutError") {
      return `no answer within ${timeoutMs} ms`;
    }
    cause = cause.cause;
  }
  const code = (cause as { code?: unknown } | undefined)?.code;
  return `unreachable${typeof code === "string" ? ` (${code})` : ""}`;
}

async function readLimited(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_DOCUMENT_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new DocumentFailure(`is larger than ${MAX_DOCUMENT_BYTES} bytes`, false);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Checks a document as OAuth Client ID Metadata Documents require: RFC 7591
 * client metadata (the MCP SDK's schema) whose `client_id` is the URL it
 * was fetched from, exactly; a public client (no `client_secret`, no
 * `client_secret_expires_at`, `token_endpoint_auth_method` absent or
 * `none`); every redirect URI https or loopback http.
 *
 * @returns the client as the authorization server then knows it
 * @throws {DocumentFailure} naming the first thing wrong
 */
function clientOf(clientId: string, text: string): OAuthClientInformationFull {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DocumentFailure("is not JSON", false);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new DocumentFailure("is not a JSON object", false);
  }
  const raw = json as Record<string, unknown>;
  if (raw.client_id !== clientId) {
    throw new DocumentFailure("has a client_id that is not its own URL", false);
  }
  if ("client_secret" in raw || "client_secret_expires_at" in raw) {
    throw new DocumentFailure("carries a client secret (only public clients are accepted)", false);
  }
  const parsed = OAuthClientMetadataSchema.safeParse(raw);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new DocumentFailure(
      `is not valid client metadata (${issue?.path.join(".") || "document"}: ${issue?.message})`,
      false,
    );
  }
  const metadata = parsed.data;
  if (metadata.token_endpoint_auth_method !== undefined) {
    if (metadata.token_endpoint_auth_method !== "none") {
      throw new DocumentFailure("asks for a token_endpoint_auth_method other than none", false);
    }
  }
  if (metadata.redirect_uris.length === 0) {
    throw new DocumentFailure("lists no redirect_uris", false);
  }
  if (!metadata.redirect_uris.every(isAllowedRedirectUri)) {
    throw new DocumentFailure(
      "has a redirect_uri that is neither https nor http on a loopback host",
      false,
    );
  }
  return { ...metadata, client_id: clientId, token_endpoint_auth_method: "none" };
}

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
 * as the MCP authorization specification 2025-11-25 uses them): a client
 * whose `client_id` is an https URL is described by the JSON document at
 * that URL. Fetches go through the given dispatcher with no redirect
 * followed, a deadline and a size limit ({@link MAX_DOCUMENT_BYTES}); a
 * document is kept in memory as long as its `Cache-Control: max-age` says
 * ({@link freshSecondsOf}), concurrent fetches of one URL are made once,
 * and when a fetch fails for want of an answer (unreachable, timeout, 5xx)
 * a copy fetched within the last 24 hours is used instead.
 */
export class ClientMetadataDocuments {
  private readonly cache = new Map<string, Cached>();
  private readonly inFlight = new Map<string, Promise<OAuthClientInformationFull>>();
  private readonly now: () => number;

  constructor(private readonly options: ClientMetadataDocumentsOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The client a URL client ID describes.
   *
   * @throws {InvalidClientError} when the URL is not a valid client ID, or
   *   its document cannot be fetched or fails a check (the description says why)
   */
  async resolve(clientId: string): Promise<OAuthClientInformationFull> {
    parseClientIdUrl(clientId);
    const cached = this.cache.get(clientId);
    if (cached !== undefined && this.now() < cached.freshUntil) return cached.client;
    let pending = this.inFlight.get(clientId);
    if (pending === undefined) {
      pending = this.refresh(clientId, cached).finally(() => this.inFlight.delete(clientId));
      this.inFlight.set(clientId, pending);
    }
    return pending;
  }

  private async refresh(
    clientId: string,
    cached: Cached | undefined,
  ): Promise<OAuthClientInformationFull> {
    try {
      const { client, freshSeconds } = await this.fetchDocument(clientId);
      await this.options.onFetched(client);
      const fetchedAt = this.now();
      this.cache.delete(clientId);
      this.cache.set(clientId, { client, fetchedAt, freshUntil: fetchedAt + freshSeconds * 1000 });
      if (this.cache.size > MAX_CACHED) {
        const [oldest] = this.cache.keys();
        if (oldest !== undefined) this.cache.delete(oldest);
      }
      return client;
    } catch (error) {
      if (!(error instanceof DocumentFailure)) throw error;
      if (
        error.transient &&
        cached !== undefined &&
        this.now() < cached.fetchedAt + STALE_LIMIT_MS
      ) {
        this.options.logger.warn(
          { clientId, reason: error.message },
          "client metadata document could not be fetched again: its earlier copy is used",
        );
        return cached.client;
      }
      throw new InvalidClientError(`the client metadata document at ${clientId} ${error.message}`);
    }
  }

  private async fetchDocument(
    clientId: string,
  ): Promise<{ client: OAuthClientInformationFull; freshSeconds: number }> {
    const { timeoutMs, dispatcher } = this.options;
    const signal = AbortSignal.timeout(timeoutMs);
    let text: string;
    let cacheControl: string | null;
    try {
      const response = await fetch(clientId, {
        dispatcher,
        redirect: "manual",
        signal,
        headers: { accept: "application/json" },
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel().catch(() => undefined);
        throw new DocumentFailure(
          `answered a redirect (${response.status}), which is not followed`,
          false,
        );
      }
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        throw new DocumentFailure(`answered HTTP ${response.status}`, response.status >= 500);
      }
      const length = Number(response.headers.get("content-length") ?? "0");
      if (length > MAX_DOCUMENT_BYTES) {
        await response.body?.cancel().catch(() => undefined);
        throw new DocumentFailure(`is larger than ${MAX_DOCUMENT_BYTES} bytes`, false);
      }
      cacheControl = response.headers.get("cache-control");
      text = response.body === null ? "" : await readLimited(response.body);
    } catch (error) {
      if (error instanceof DocumentFailure) throw error;
      throw new DocumentFailure(
        `could not be fetched: ${describeFetchError(signal.aborted ? signal.reason : error, timeoutMs)}`,
        true,
      );
    }
    return { client: clientOf(clientId, text), freshSeconds: freshSecondsOf(cacheControl) };
  }
}
