import { CommanderError } from "commander";

/** An error class whose instances name the refused case in `code` (PersonaVersionError, PersonaCanaryError). */
type RefusalClass = abstract new (...parameters: never[]) => Error & { code: string };

/**
 * Runs a store call on persona `id` for `persona-admin persona …`: its
 * result, with a refusal (an instance of `refusal`) turned into the CLI's
 * error `persona.<code>` and no such persona (undefined) into
 * `persona.unknown`.
 *
 * @throws {CommanderError} exit code 1 for a refusal or an unknown persona; the call's other errors as thrown
 */
export async function personaCall<T>(
  call: () => Promise<T | undefined>,
  id: string,
  refusal: RefusalClass,
): Promise<T> {
  let result: T | undefined;
  try {
    result = await call();
  } catch (error) {
    if (error instanceof refusal) {
      throw new CommanderError(1, `persona.${error.code}`, error.message);
    }
    throw error;
  }
  if (result === undefined) {
    throw new CommanderError(1, "persona.unknown", `no persona with ID ${id}`);
  }
  return result;
}
