/**
 * Query parameters whose values are credentials: the sign-in link's `token`,
 * and the browser login's `state` (docs/API.md §4.5), which protects the login
 * session of the tool that made it.
 */
const SECRET_PARAMETERS = ["token", "state"];
const NAMES = SECRET_PARAMETERS.join("|");
/** `?token=…` or `&state=…`: the value runs to the next `&` or `#`. */
const PLAIN = new RegExp(`([?&](?:${NAMES})=)[^&#]*`, "gu");
/**
 * The same inside another parameter's value, percent-encoded once: the
 * return path of `/sign-in?return_to=%2Fapi%2Fpersona%2Fcli%2Flogin%3Fstate%3D…`.
 * The value runs to the next encoded `&` (`%26`), plain `&` or `#`.
 */
const ENCODED = new RegExp(
  `((?:%3[Ff]|%26)(?:${NAMES})%3[Dd])(?:[^&#%]|%(?!26)[0-9A-Fa-f]{2})*`,
  "gu",
);

/**
 * Replaces the values of credential query parameters in a request URL with
 * `[redacted]`, also where they sit percent-encoded in a return path, so
 * request logs never hold a usable sign-in link or a login's `state`.
 *
 * @example
 * redactUrl("/sign-in/verify?token=abc") // "/sign-in/verify?token=[redacted]"
 * redactUrl("/api/persona/cli/login?state=abc&source=cli") // "/api/persona/cli/login?state=[redacted]&source=cli"
 */
export function redactUrl(url: string): string {
  const index = url.indexOf("?");
  if (index < 0) return url;
  const query = url.slice(index).replace(PLAIN, "$1[redacted]").replace(ENCODED, "$1[redacted]");
  return url.slice(0, index) + query;
}
