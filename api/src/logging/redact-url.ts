/** Query parameters whose values are credentials: the sign-in link token. */
const SECRET_PARAMETERS = ["token"];

/**
 * Replaces the values of credential query parameters in a request URL with
 * `[redacted]`, so request logs never hold a usable sign-in link.
 *
 * @example
 * redactUrl("/sign-in/verify?token=abc") // "/sign-in/verify?token=[redacted]"
 */
export function redactUrl(url: string): string {
  const index = url.indexOf("?");
  if (index < 0) return url;
  const pattern = new RegExp(`([?&](?:${SECRET_PARAMETERS.join("|")})=)[^&#]*`, "gu");
  return url.slice(0, index) + url.slice(index).replace(pattern, "$1[redacted]");
}
