/** Exit codes of the setup script, for the agent (and scripts) to tell outcomes apart. */
export const SETUP_EXIT_CODES = {
  /** The key was written. */
  saved: 0,
  /** The browser login did not give a key: denied, or an answer that was refused. */
  loginFailed: 1,
  /** A bad command line, an unusable destination, or a file that cannot be updated safely. */
  usage: 2,
  /** Refused: the destination was not confirmed, or already holds a key and `--force` was not given. */
  refused: 3,
  /** No answer from the browser in time. */
  timeout: 6,
  /** Stopped by Ctrl-C (SIGINT); SIGTERM exits with 143. */
  cancelled: 130,
} as const;

/**
 * Why the setup stopped without writing the key. The message says what
 * happened and what to do; it never holds a key (only its masked form).
 *
 * @example
 * throw new SetupError(SETUP_EXIT_CODES.refused, "Not confirmed; nothing was written.");
 */
export class SetupError extends Error {
  override name = "SetupError";

  /**
   * @param exitCode - one of {@link SETUP_EXIT_CODES}
   * @param message - what happened and what to do next
   */
  constructor(
    readonly exitCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
