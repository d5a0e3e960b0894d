import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A URL scheme at the start of a value. Two letters at least, so that a
 * Windows drive (`C:\data\store.sqlite`) reads as a path.
 */
const SCHEME = /^([a-z][a-z0-9+.-]+):/iu;

/** The PostgreSQL URL forms (what the storage layer opens with `pg`). */
const POSTGRES = /^postgres(?:ql)?:\/\//iu;

/**
 * A URL with the password of its user part replaced by `***`, to name it in
 * an error. Everything between `://` and the last `@` after the user name is
 * masked, so a password holding `@` or `/` leaks no part of it.
 *
 * @example
 * maskUrlPassword("mysql://u:S3cret@h/db") // "mysql://u:***@h/db"
 */
export function maskUrlPassword(url: string): string {
  const authority = url.indexOf("://");
  const at = url.lastIndexOf("@");
  if (authority < 0 || at < authority) return url;
  const userInfo = url.slice(authority + 3, at);
  const colon = userInfo.indexOf(":");
  const user = colon < 0 ? userInfo : userInfo.slice(0, colon);
  return `${url.slice(0, authority + 3)}${user}${colon < 0 ? "" : ":***"}${url.slice(at)}`;
}

/**
 * Reads `PERSONA_DATABASE_URL`: a path or a `file:` URL (an SQLite
 * file, resolved to an absolute path), `:memory:`, or a `postgres://` or
 * `postgresql://` URL (returned as given). Any other scheme — a misspelt
 * `postgress://`, `mysql://`, `https://` — is refused, so a typo never starts
 * the service on a new SQLite file named after the URL. Nothing is touched
 * on disk here.
 *
 * @returns the location the storage layer opens, or why the value is refused
 *   (naming the URL with its password masked)
 */
export function resolveDatabaseUrl(
  value: string,
): { ok: true; location: string } | { ok: false; problem: string } {
  if (value === ":memory:") return { ok: true, location: value };
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return { ok: true, location: path.resolve(value) };
  // Without `//` there is no user part to find a password in: name the scheme only.
  const shown = value.includes("://") ? maskUrlPassword(value) : `${scheme}:…`;
  const refuse = (why: string) => ({
    ok: false as const,
    problem: `${why} (${shown}); use a file path, a file: URL, postgres:// or postgresql://`,
  });
  if (scheme === "postgres" || scheme === "postgresql") {
    return POSTGRES.test(value)
      ? { ok: true, location: value }
      : refuse(`a ${scheme}: URL must start with ${scheme}://`);
  }
  if (scheme !== "file") return refuse(`unsupported scheme ${scheme}:`);
  if (value.startsWith("file://")) {
    try {
      return { ok: true, location: fileURLToPath(value) };
    } catch {
      return refuse("a file: URL must name a local file");
    }
  }
  const file = value.slice("file:".length);
  return file === ""
    ? refuse("a file: URL must name a file")
    : { ok: true, location: path.resolve(file) };
}
