import type { BrowserLoginOptions } from "./browser-login.js";
import type { ProgressStream } from "./progress-line.js";

/**
 * What a browser login tells the person at the terminal (on `stream`,
 * standard error usually), as `onUrl` and `onBrowserError` for
 * {@link loginWithBrowser}: the URL to approve at, and, when the browser
 * could not be opened, that it could not and why, with the URL to open by
 * hand. Used by `persona login` and the plugin's setup, so both say the
 * same.
 *
 * @param stream - where the lines go
 * @param openBrowser - false for `--no-browser` (the URL is only printed)
 *
 * @example
 * await loginWithBrowser({ baseUrl, ...loginMessages(process.stderr, true) });
 */
export function loginMessages(
  stream: ProgressStream,
  openBrowser: boolean,
): Required<Pick<BrowserLoginOptions, "onUrl" | "onBrowserError">> {
  let loginUrl = "";
  return {
    onUrl(url) {
      loginUrl = url;
      stream.write(
        openBrowser
          ? `Opening your browser to approve a new API key. If it does not open, visit:\n  ${url}\n`
          : `Open this URL in a browser to approve a new API key:\n  ${url}\n`,
      );
    },
    onBrowserError(error) {
      const reason = error instanceof Error ? error.message : String(error);
      // On a terminal the waiting line is rewritten in place: clear it first.
      const clear = stream.isTTY === true ? "\r\u001b[2K" : "";
      stream.write(
        `${clear}Could not open a browser (${reason}). Open this URL in a browser yourself:\n  ${loginUrl}\n`,
      );
    },
  };
}
