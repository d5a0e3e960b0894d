import type { LoginSource } from "@persona-reply/shared";
import { maskApiKey } from "../settings/mask-api-key.js";
import { callbackPage, receivedSentence } from "./callback-page.js";
import { startCallbackServer } from "./callback-server.js";
import { BrowserLoginError } from "./login-errors.js";
import { buildLoginUrl, createLoginSecrets } from "./login-request.js";
import { openSystemBrowser } from "./open-system-browser.js";
import { readCallback } from "./read-callback.js";

/** How long a login waits for the browser by default: 10 minutes (sign-in by e-mail takes a while). */
export const DEFAULT_LOGIN_TIMEOUT_MS = 10 * 60_000;

/** Options of {@link loginWithBrowser}. */
export interface BrowserLoginOptions {
  /** Site origin of the service, without `/api/v1`, e.g. `https://persona.example.com`. */
  baseUrl: string;
  /** Display name of the key to create (the service has a default). */
  name?: string | undefined;
  /** Who asks (docs/API.md §4.5): `cli`, `codex` or `claude_code`; `cli` by default. */
  source?: LoginSource | undefined;
  /**
   * Opens the login URL in a browser. By default the system's browser
   * ({@link openSystemBrowser}); `false` opens nothing (`--no-browser`: the
   * person opens the printed URL, e.g. on a headless machine).
   */
  openBrowser?: false | ((url: string) => Promise<unknown>) | undefined;
  /** Receives the login URL before the browser opens; print it so it can be opened by hand. */
  onUrl?: ((url: string) => void) | undefined;
  /** Called about once a second while waiting: milliseconds waited and the timeout. */
  onProgress?: ((waitedMs: number, timeoutMs: number) => void) | undefined;
  /**
   * Told when the browser could not be opened — the opener is missing or
   * failed, e.g. `xdg-open` with no display — with an error naming why; the
   * login goes on, waiting for the URL to be opened by hand.
   */
  onBrowserError?: ((error: unknown) => void) | undefined;
  /**
   * Port of the loopback callback server on 127.0.0.1; by default (or 0)
   * one the system picks. A fixed port suits an SSH port forward or a
   * container's published port.
   */
  callbackPort?: number | undefined;
  /** How long to wait for the browser's answer, in milliseconds (default 10 minutes). */
  timeoutMs?: number | undefined;
  /** Abandons the login. */
  signal?: AbortSignal | undefined;
}

/** A key obtained by browser login. */
export interface BrowserLoginResult {
  /** The plaintext key: store it (mode 0600) and never print it. */
  apiKey: string;
  /** The key masked for display, e.g. `prk_…abcd`. */
  maskedApiKey: string;
}

/**
 * Gets an API key through the browser without the key ever being shown
 * (docs/API.md §4.4–4.5): makes a random `state` (256 bits) and a one-time
 * RSA-OAEP-256 key pair (2048 bits), starts a loopback server on 127.0.0.1
 * (on `callbackPort`, or a port the system picks) for one callback, hands the login URL to `onUrl` and
 * opens it, waits (with progress, up to the timeout) for the service's
 * redirect, checks `state`, and decrypts `encrypted_api_key` with the
 * private key, which never leaves this process. The browser tab is told it
 * can be closed. Node only.
 *
 * @throws {BrowserLoginError} `port_unavailable` (the callback port is
 *   taken), `timeout`, `denied`, `state_mismatch`, `invalid_response` or
 *   `aborted`; nothing is returned then
 *
 * @example
 * import { loginWithBrowser } from "@persona-reply/client/login";
 * import { saveProfile } from "@persona-reply/client/node";
 *
 * const { apiKey, maskedApiKey } = await loginWithBrowser({
 *   baseUrl: "https://persona.example.com",
 *   name: "laptop",
 *   onUrl: (url) => console.error(`Approve in your browser: ${url}`),
 * });
 * saveProfile("default", { apiKey });
 * console.log(`saved ${maskedApiKey}`);
 */
export async function loginWithBrowser(options: BrowserLoginOptions): Promise<BrowserLoginResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
  const secrets = await createLoginSecrets();
  const server = await startCallbackServer(options.callbackPort);
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  let removeAbortListener = () => {};
  const source = options.source ?? "cli";
  try {
    const url = buildLoginUrl({
      baseUrl: options.baseUrl,
      state: secrets.state,
      redirectUri: server.redirectUri,
      encodedPublicKey: secrets.encodedPublicKey,
      name: options.name,
      source,
    });
    options.onUrl?.(url);
    if (options.openBrowser !== false) {
      const opener = options.openBrowser ?? openSystemBrowser;
      opener(url).catch((error: unknown) => options.onBrowserError?.(error));
    }

    const started = Date.now();
    const stopped = new Promise<never>((_resolve, reject) => {
      timers.push(
        setTimeout(
          () =>
            reject(
              new BrowserLoginError(
                "timeout",
                `no answer from the browser within ${Math.round(timeoutMs / 1000)} s; run the login again`,
              ),
            ),
          timeoutMs,
        ),
      );
      const signal = options.signal;
      if (signal !== undefined) {
        const onAbort = () =>
          reject(
            new BrowserLoginError("aborted", "the login was cancelled", { cause: signal.reason }),
          );
        if (signal.aborted) onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        removeAbortListener = () => signal.removeEventListener("abort", onAbort);
      }
    });
    if (options.onProgress !== undefined) {
      const report = options.onProgress;
      report(0, timeoutMs);
      timers.push(setInterval(() => report(Date.now() - started, timeoutMs), 1000));
    }

    const request = await Promise.race([server.callback, stopped]);
    try {
      const apiKey = await readCallback(request.query, secrets.state, secrets.privateKey);
      const maskedApiKey = maskApiKey(apiKey);
      await request.respond(
        200,
        callbackPage("saved", receivedSentence(source, maskedApiKey), source),
      );
      return { apiKey, maskedApiKey };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await request.respond(400, callbackPage("refused", message, source));
      throw error;
    }
  } finally {
    for (const timer of timers) clearTimeout(timer);
    removeAbortListener();
    await server.close();
  }
}
