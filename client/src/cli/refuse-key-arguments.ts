/** Flags a key might be passed with; `--api-key-stdin` and `--api-key-env` do not match. */
const KEY_FLAG_PATTERN = /^--?(api[-_]?key|key|token|secret)(=.*)?$/iu;
/** Anything shaped like a Persona Reply key. */
const KEY_SHAPE_PATTERN = /prk_[0-9A-Za-z]{8,}/u;

/**
 * The message that refuses an API key given as a command argument (spec
 * §4.4: unsupported on purpose), saying how to give it instead.
 */
export const KEY_ARGUMENT_REFUSAL =
  "persona does not take an API key as a command argument: arguments stay in shell history and are visible to other processes.\n" +
  "Give it one of these ways instead:\n" +
  "  persona configure --api-key-stdin            (paste it at the hidden prompt, or pipe it in)\n" +
  "  persona configure --api-key-env MY_KEY_VAR   (read it from an environment variable)\n" +
  "  export SERVICE_API_KEY=...                   (for one shell session)";

/**
 * Looks for an API key among the arguments, before the parser sees them
 * (a parser's "unknown option" message would echo the key).
 *
 * @returns true when an argument is a key flag or holds something key-shaped
 */
export function hasKeyArgument(argv: readonly string[]): boolean {
  return argv.some(
    (argument) => KEY_FLAG_PATTERN.test(argument) || KEY_SHAPE_PATTERN.test(argument),
  );
}
