/**
 * @persona-reply/client/login — the browser login flow (docs/API.md §4.4–4.5), for
 * the `persona login` command and the coding-agent plugin. Node only. Every
 * export of this file is public.
 */

export type { LoginSource } from "@persona-reply/shared";
export {
  type BrowserLoginOptions,
  type BrowserLoginResult,
  DEFAULT_LOGIN_TIMEOUT_MS,
  loginWithBrowser,
} from "./browser-login.js";
export { CALLBACK_PATH, parseCallbackPort } from "./callback-server.js";
export { BrowserLoginError } from "./login-errors.js";
export { loginMessages } from "./login-messages.js";
export { buildLoginUrl, LOGIN_KEY_BITS } from "./login-request.js";
export { openSystemBrowser } from "./open-system-browser.js";
export { createProgressLine, type ProgressLine, type ProgressStream } from "./progress-line.js";
