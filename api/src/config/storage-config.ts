import { z } from "zod";

const milliseconds = z.coerce.number().int().positive().max(3_600_000);

/**
 * Deadlines and limits of the store and Redis (docs/OPERATIONS.md "Timeouts" and "Storage failures"), spread into the
 * server configuration schema. Every wait on the database or Redis ends by
 * one of these; a request that meets one gets 503 with `Retry-After`,
 * uncharged.
 */
export const storageConfigShape = {
  /**
   * Longest wait of one storage call on the request path: a statement
   * (PostgreSQL's `statement_timeout`), a free pool connection, SQLite's
   * write lock held by another process.
   */
  PERSONA_STORAGE_TIMEOUT_MS: milliseconds.default(2_000),
  /** PostgreSQL: longest wait for a new connection. */
  PERSONA_DATABASE_CONNECT_TIMEOUT_MS: milliseconds.default(2_000),
  /** SQLite: how long the storage worker lets SQLite wait for a lock before retrying on its own. */
  PERSONA_SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(1_000).default(25),
  /** SQLite: bytes the write-ahead log is truncated back to after checkpoints (`journal_size_limit`). */
  PERSONA_SQLITE_WAL_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(64 * 1024 * 1024),
  /**
   * SQLite: start with a new, empty database even though signs show one
   * existed (leftover `-wal`/`-shm` files, an env file holding a key).
   */
  PERSONA_NEW_DATABASE: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((value) => value === "true" || value === "1"),
  /** Redis: longest wait for a command (and for a connection). */
  PERSONA_REDIS_TIMEOUT_MS: milliseconds.default(1_000),
  /** `/readyz`: how long the database and Redis probes may take before the answer is 503. */
  PERSONA_READINESS_TIMEOUT_MS: milliseconds.default(1_000),
};
