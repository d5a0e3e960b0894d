/**
 * A mistake on the command line or in the input, found before any request:
 * the tool prints its message and exits with the usage code (2).
 */
export class UsageError extends Error {
  override name = "UsageError";
}
