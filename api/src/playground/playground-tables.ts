/**
 * Tables of the browser playground (migration `0003_playground`). Like the
 * rest of the store they are dialect-neutral: text and integer columns,
 * times as ISO 8601 UTC strings (which sort and compare as text).
 */
export interface PlaygroundTables {
  playground_emails: PlaygroundEmailsTable;
  sign_in_tokens: SignInTokensTable;
  playground_sessions: PlaygroundSessionsTable;
  playground_key_flashes: KeyFlashesTable;
}

/** An e-mail address the operator allowed to sign in, and the account it signs in to. */
export interface PlaygroundEmailsTable {
  /** Normalized (trimmed, lower-case) address. */
  email: string;
  account_id: string;
  created_at: string;
}

/** A one-time sign-in link token; only its SHA-256 hash is stored. */
export interface SignInTokensTable {
  token_hash: string;
  email: string;
  account_id: string;
  /** Same-origin path to return to after sign-in, e.g. the consent page. */
  return_to: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A signed-in browser session; the cookie holds a secret whose hash is `token_hash`. */
export interface PlaygroundSessionsTable {
  /** Public identifier (UUID), used to list and revoke sessions. */
  id: string;
  token_hash: string;
  account_id: string;
  email: string;
  /** The browser's User-Agent at sign-in, cut to 200 characters, for the sessions page. */
  user_agent: string | null;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  revoked_at: string | null;
}

/**
 * A new key waiting to be shown once on `/keys` after the redirect that
 * follows its creation (migration `0007_playground_key_flashes`). The key is
 * sealed with a key derived from the session's cookie secret, which the
 * store never holds, so the table alone reveals no key.
 */
export interface KeyFlashesTable {
  id: string;
  /** The session (`playground_sessions.id`) the key is shown to. */
  session_id: string;
  /** The key's name and the key, AES-256-GCM sealed: base64url of IV, ciphertext and tag. */
  sealed: string;
  created_at: string;
  /** After this the key is no longer shown (it stays usable; the list shows it masked). */
  expires_at: string;
}
