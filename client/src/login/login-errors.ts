/**
 * Why a browser login did not produce a key. `code` tells the cases apart
 * for programs (the plugin, the CLI's exit code); the message says what to do.
 *
 * @example
 * try {
 *   await loginWithBrowser({ baseUrl });
 * } catch (error) {
 *   if (error instanceof BrowserLoginError && error.code === "denied") console.error("denied in the browser");
 * }
 */
export class BrowserLoginError extends Error {
  override name = "BrowserLoginError";

  /**
   * @param code - `port_unavailable` (the callback port asked for is taken),
   *   `timeout` (no answer in time), `denied` (Deny was chosen),
   *   `state_mismatch` (the callback's `state` is not the one this login made:
   *   refused, nothing saved), `invalid_response` (no usable encrypted key),
   *   `aborted` (the caller's signal)
   */
  constructor(
    readonly code:
      | "port_unavailable"
      | "timeout"
      | "denied"
      | "state_mismatch"
      | "invalid_response"
      | "aborted",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
