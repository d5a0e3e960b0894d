import { CommanderError } from "commander";

/** The longest release note, in characters: a sentence or two beside a persona's version. */
export const MAX_RELEASE_NOTE_LENGTH = 500;

/** The help of `--release-note` on the commands that make a persona version. */
export const RELEASE_NOTE_HELP =
  "what the customer is told about this version, shown on their pages (the --note stays internal)";

/**
 * Parses the value of `--release-note <text>` (a commander option parser):
 * the text trimmed, 1–{@link MAX_RELEASE_NOTE_LENGTH} characters, no
 * control characters.
 *
 * @throws {CommanderError} `persona.release_note` for an empty, overlong or
 *   garbled text (exit 1, nothing written)
 */
export function parseReleaseNote(text: string): string {
  const trimmed = text.trim();
  const refuse = (why: string) =>
    new CommanderError(1, "persona.release_note", `--release-note ${why}`);
  if (trimmed === "") throw refuse("must not be empty: leave the option out for none");
  if (trimmed.length > MAX_RELEASE_NOTE_LENGTH) {
    throw refuse(`must be at most ${MAX_RELEASE_NOTE_LENGTH} characters`);
  }
  // Customers read it on a page: a control character would garble it.
  if (/\p{Cc}/u.test(trimmed)) throw refuse("must not contain control characters");
  return trimmed;
}
