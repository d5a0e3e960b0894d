/** The API keys table (migration `0001_accounts_personas_keys`, columns added since). */
export interface KeyTables {
  api_keys: ApiKeysTable;
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
  /** Operator overrides of this key's rate limits (null: the account's or the default). */
  rate_limit_minute: number | null;
  rate_limit_hour: number | null;
  rate_limit_day: number | null;
}
