/** Longest return path kept (the login route's query, with a 4096-bit key, fits well). */
const MAX_RETURN_PATH_LENGTH = 8192;
const PLACEHOLDER_ORIGIN = "http://return-path.invalid";
/** A local path: one `/`, then neither `/` nor `\` (`//host` and `/\host` name another host). */
const LOCAL_PATH = /^\/(?![/\\])/u;

/**
 * Checks a return path (where to go after sign-in) so that it can only lead
 * to a page of this site. The value is normalized by the URL parser (dot
 * segments, `%2e`, backslashes, tabs and newlines), and what comes out is
 * what is checked and returned: it must start with a single `/` followed by
 * neither `/` nor `\`, and resolve to this origin. Checking only the raw
 * value is not enough: `/.//evil.example` or `/%2e//evil.example` start
 * with one `/` but normalize to `//evil.example`, another host.
 *
 * @returns the path and query, rebuilt by the URL parser, or undefined when unsafe
 * @example
 * safeReturnPath("/a/../keys?x=1") // "/keys?x=1"
 * safeReturnPath("/.//evil.example/") // undefined
 */
export function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_RETURN_PATH_LENGTH) return undefined;
  if (!LOCAL_PATH.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return undefined;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return undefined;
  const path = url.pathname + url.search;
  if (!LOCAL_PATH.test(path)) return undefined;
  // What a browser does with the Location header: resolve it against the page it is on.
  if (new URL(path, `${PLACEHOLDER_ORIGIN}/deep/page?query`).origin !== PLACEHOLDER_ORIGIN) {
    return undefined;
  }
  return path;
}
