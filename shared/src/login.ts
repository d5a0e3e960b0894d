import { z } from "zod";

/**
 * The wire contract of the browser login route, `GET /api/persona/cli/login`
 * (docs/API.md §4.5): who may start it, the parameters it reads, the JWE it answers
 * with and the parameters of the loopback callback. The route (api), the
 * `persona login` command (client) and the plugins' setup (plugin) all read
 * these definitions.
 */

/** Who may start a browser login, as `source` (docs/API.md §4.5). */
export const LOGIN_SOURCES = ["cli", "codex", "claude_code"] as const;

/** `source`: one of {@link LOGIN_SOURCES}. */
export const loginSourceSchema = z.enum(LOGIN_SOURCES, {
  error: `must be one of ${LOGIN_SOURCES.join(", ")}`,
});

/** A value of {@link LOGIN_SOURCES}. */
export type LoginSource = z.infer<typeof loginSourceSchema>;

/** Key management algorithm of the login route's JWE: RSA-OAEP with SHA-256. */
export const KEY_MANAGEMENT_ALGORITHM = "RSA-OAEP-256";
/** Content encryption algorithm of the login route's JWE: AES-256-GCM. */
export const CONTENT_ENCRYPTION_ALGORITHM = "A256GCM";

/** Shortest `state` accepted: 16 characters carry ≥ 96 bits even as hex; our tools send 43. */
export const MIN_STATE_LENGTH = 16;
/** Longest `state` accepted. */
export const MAX_STATE_LENGTH = 512;

const UNRESERVED = /^[A-Za-z0-9._~-]+$/u;

/** `state`: 16–512 characters of the URL's unreserved set (RFC 3986 §2.3). */
export const loginStateSchema = z.string().superRefine((state, context) => {
  if (state.length < MIN_STATE_LENGTH || state.length > MAX_STATE_LENGTH) {
    context.addIssue({
      code: "custom",
      message: `must be ${MIN_STATE_LENGTH}–${MAX_STATE_LENGTH} characters of random value, not ${state.length}`,
    });
  } else if (!UNRESERVED.test(state)) {
    context.addIssue({
      code: "custom",
      message: "may contain only the characters A–Z a–z 0–9 - . _ ~",
    });
  }
});

/** Hosts a callback may use: loopback only (docs/API.md §4.5). `[::1]` is how the URL parser writes ::1. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"] as const;
/** Longest `redirect_uri` accepted. */
export const MAX_REDIRECT_URI_LENGTH = 2048;

const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;

/** A checked callback URL, rebuilt from its parsed parts. */
export interface LoopbackCallback {
  /** `http://host:port/path?query`. */
  url: string;
  /** e.g. `http://127.0.0.1:53682`. */
  origin: string;
  /** Host and port shown on the consent page, e.g. `127.0.0.1:53682`. */
  hostPort: string;
}

/**
 * Checks `redirect_uri`: an `http` URL whose host is exactly 127.0.0.1,
 * localhost or [::1], with an explicit port, no username or password and no
 * fragment. It is parsed with the WHATWG URL parser and rebuilt from the
 * parsed parts, never compared by prefix.
 *
 * @returns the rebuilt URL and its origin, or why it is refused
 */
export function checkRedirectUri(
  raw: string,
): ({ ok: true } & LoopbackCallback) | { ok: false; reason: string } {
  const refuse = (reason: string) => ({ ok: false as const, reason });
  if (raw.length > MAX_REDIRECT_URI_LENGTH) {
    return refuse(`is longer than ${MAX_REDIRECT_URI_LENGTH} characters`);
  }
  // The parser would silently drop some of these; a callback URL never needs them.
  if (SPACE_OR_CONTROL.test(raw)) return refuse("must not contain spaces or control characters");
  if (raw.includes("#")) return refuse("must not contain a fragment (#)");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("is not an absolute URL");
  }
  if (url.protocol !== "http:") {
    return refuse(`must be an http:// loopback URL, not ${url.protocol}//`);
  }
  if (url.username !== "" || url.password !== "") {
    return refuse("must not contain a username or password (user@host)");
  }
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(url.hostname)) {
    return refuse(`host must be exactly 127.0.0.1, localhost or [::1], not ${url.hostname}`);
  }
  // The parser drops a default port (:80), so an empty port means none was usable.
  if (url.port === "") {
    return refuse("must name an explicit port other than 80, e.g. http://127.0.0.1:53682/callback");
  }
  const origin = `http://${url.hostname}:${url.port}`;
  return {
    ok: true,
    url: `${origin}${url.pathname}${url.search}`,
    origin,
    hostPort: `${url.hostname}:${url.port}`,
  };
}

/** `redirect_uri`: a loopback callback (see {@link checkRedirectUri}), read as its parsed parts. */
export const redirectUriSchema = z.string().transform((raw, context): LoopbackCallback => {
  const checked = checkRedirectUri(raw);
  if (!checked.ok) {
    context.addIssue({ code: "custom", message: checked.reason });
    return z.NEVER;
  }
  return { url: checked.url, origin: checked.origin, hostPort: checked.hostPort };
});

/** Rules for `recipient_public_key_jwk`, an RSA public JWK. */
export const RECIPIENT_KEY_RULES = {
  /** Smallest RSA modulus accepted, in bits. */
  minModulusBits: 2048,
  /** Largest RSA modulus accepted, in bits: bigger keys only cost server time. */
  maxModulusBits: 8192,
  /**
   * The only RSA public exponent accepted: 65537 (F4), what every
   * key generator uses. e = 1 makes encryption the identity and small ones
   * like 3 invite known attacks; nobody needs them here.
   */
  publicExponent: 65_537,
  /** Longest encoded JWK accepted (an 8192-bit public JWK is about 1.5 kB encoded). */
  maxEncodedLength: 4096,
  /** Members only a private RSA JWK has (RFC 7518 §6.3.2); a recipient key has none. */
  privateMembers: ["d", "p", "q", "dp", "dq", "qi", "oth"],
} as const;

/**
 * The query of `GET /api/persona/cli/login` as sent (docs/API.md §4.5), in the
 * order the route checks it. `recipient_public_key_jwk` is base64url of a
 * JSON RSA public JWK (see {@link RECIPIENT_KEY_RULES}); `name` is the key's
 * name on the /keys page.
 */
export interface LoginQuery {
  state: string;
  redirect_uri: string;
  recipient_public_key_jwk: string;
  name?: string | undefined;
  source?: LoginSource | undefined;
}

/** Names of the parameters of {@link LoginQuery}, in the order the route checks them. */
export const LOGIN_QUERY_PARAMETERS = [
  "state",
  "redirect_uri",
  "recipient_public_key_jwk",
  "name",
  "source",
] as const satisfies readonly (keyof LoginQuery)[];

/**
 * The loopback callback's query (docs/API.md §4.5): `state` always, then either
 * `encrypted_api_key` (a compact JWE with {@link KEY_MANAGEMENT_ALGORITHM}
 * and {@link CONTENT_ENCRYPTION_ALGORITHM}) or `error` (`access_denied` when
 * the person denied the login).
 */
export type LoginCallback =
  | { state: string; encrypted_api_key: string }
  | { state: string; error: string };

/** `error` of a callback whose login the person denied (docs/API.md §4.5). */
export const LOGIN_DENIED_ERROR = "access_denied";
