/**
 * The store cannot start as configured (a damaged file, a schema newer than
 * the code, a database that vanished): start-up stops with this message and
 * exit code 78 (EX_CONFIG), before anything is served or seeded.
 */
export class StorageStartupError extends Error {
  override readonly name = "StorageStartupError";
  /** The process exit code: 78, as for a bad configuration. */
  readonly exitCode = 78;
}
