/**
 * Tables of the store, as kysely sees them: every query of `Database`
 * (storage/store.ts) is checked against this interface. Storage names no
 * table of its own here; the service declares the features' tables into it
 * (api/src/database-schema.ts), so the layer below the features never
 * imports them. Types stay dialect-neutral (docs/ARCHITECTURE.md
 * "Storage"): booleans are integers 0/1 and times are ISO 8601 UTC
 * strings, so the same migrations serve SQLite and PostgreSQL.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in api/src/database-schema.ts
export interface DatabaseSchema {}
