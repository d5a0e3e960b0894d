/**
 * Tables of the browser login (migration `0009_login_consents`),
 * dialect-neutral like the rest of the store.
 */
export interface LoginTables {
  login_consents: LoginConsentsTable;
}

/** A consent of `GET /api/persona/cli/login` that was answered, used once. */
export interface LoginConsentsTable {
  /** SHA-256 of the login request's `state`, hex. */
  state_hash: string;
  /** The signed-in account that answered. */
  account_id: string;
  decision: "approve" | "deny";
  /** The key the approval created; null for a denial. */
  key_id: string | null;
  /** When it was answered (ISO 8601 UTC). */
  used_at: string;
}
