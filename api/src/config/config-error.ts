/**
 * Raised when a configuration variable or the file it names is missing or
 * malformed; the message names the variable (and the field of the file) and
 * never holds a secret's value. The service stops with exit code 78
 * (EX_CONFIG) on it.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
