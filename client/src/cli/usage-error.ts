import { ConfigurationError } from "../errors/client-errors.js";

/**
 * A mistake on the command line or in the input, found before any request:
 * the tool prints its message and exits with the usage code (2).
 */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Runs `check`, turning a ConfigurationError about a flag's value into the
 * usage error it is on the command line.
 *
 * @throws {UsageError} for a ConfigurationError; any other error as thrown
 */
export function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (error instanceof ConfigurationError) throw new UsageError(error.message);
    throw error;
  }
}
