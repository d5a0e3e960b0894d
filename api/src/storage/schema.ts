/**
 * Tables of the store. Types stay dialect-neutral (DESIGN.md "Storage"):
 * booleans are integers 0/1 and times are ISO 8601 UTC strings, so the
 * same migrations serve SQLite and PostgreSQL.
 */
export interface DatabaseSchema {
  accounts: AccountsTable;
  personas: PersonasTable;
  api_keys: ApiKeysTable;
}

export interface AccountsTable {
  id: string;
  name: string;
  status: "active" | "suspended" | "closed";
  created_at: string;
}

export interface PersonasTable {
  id: string;
  account_id: string;
  name: string;
  /** The persona traits as JSON text (validated by personaTraitsSchema on read). */
  traits: string;
  personify_access: number;
  provider: string;
  model: string;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** SHA-256 of the whole key, hex; the key itself is never stored. */
  key_hash: string;
  /** Masked form for lists: prefix and last four, e.g. `prk_…Ab3d`. */
  masked: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}
