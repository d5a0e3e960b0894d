import type { DatabaseDialect } from "../storage/store.js";
import { postgresRetention } from "./postgres/postgres-retention.js";
import type { RetentionDialect } from "./retention-dialect.js";
import { sqliteRetention } from "./sqlite/sqlite-retention.js";

const RETENTION_DIALECTS: Readonly<Record<DatabaseDialect, RetentionDialect>> = {
  sqlite: sqliteRetention,
  postgres: postgresRetention,
};

/** The retention dialect of a store's dialect. */
export function retentionDialectOf(dialect: DatabaseDialect): RetentionDialect {
  return RETENTION_DIALECTS[dialect];
}
