/**
 * Tables of the OAuth authorization server (migration `0028_oauth`),
 * dialect-neutral like the rest of the store: times are ISO 8601 UTC text.
 */
export interface OAuthTables {
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
}

/** A client registered by RFC 7591 dynamic registration: always a public client (no secret; PKCE instead). */
export interface OAuthClientsTable {
  client_id: string;
  client_name: string | null;
  /** The registered client metadata (RFC 7591 §2) as JSON. */
  metadata: string;
  created_at: string;
}

/** An account's approval of a client for one persona: a connected app, and its tokens' family. */
export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  account_id: string;
  persona_id: string;
  /** The resource (RFC 8707) its access tokens are bound to: the service's `/mcp` URL. */
  resource: string;
  /** The redirect URI the authorization request named. */
  redirect_uri: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** An authorization code, used once. */
export interface OAuthCodesTable {
  /** SHA-256 hex of the code. */
  code_hash: string;
  grant_id: string;
  /** The PKCE S256 `code_challenge` of the authorization request. */
  code_challenge: string;
  expires_at: string;
  used_at: string | null;
}

/** An access or refresh token. */
export interface OAuthTokensTable {
  /** SHA-256 hex of the token. */
  token_hash: string;
  grant_id: string;
  kind: "access" | "refresh";
  created_at: string;
  expires_at: string;
  /** When a refresh token was exchanged (rotated); a second use revokes the grant. */
  spent_at: string | null;
}
