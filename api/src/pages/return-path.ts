/** Longest return path kept (the login route's query, with a 4096-bit key, fits well). */
const MAX_RETURN_PATH_LENGTH = 8192;
const PLACEHOLDER_ORIGIN = "http://return-path.invalid";

/**
 * Checks a return path (where to go after sign-in) so that it can only lead
 * to a page of this site: it must start with a single `/`, and resolving it
 * against an origin must keep that origin (which also rules out `//host`,
 * `/\host` and other tricks the URL parser normalizes).
 *
 * @returns the path and query, rebuilt by the URL parser, or undefined when unsafe
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_RETURN_PATH_LENGTH) return undefined;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return undefined;
  let url: URL;
  try {
    url = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return undefined;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return undefined;
  return url.pathname + url.search;
}
