import { checkKeyName } from "../playground/account-access.js";
import { type RecipientKey, readRecipientKey } from "./recipient-key.js";

/** Who may start a browser login, as `source` (spec §4.5). */
export const LOGIN_SOURCES = ["cli", "codex", "claude_code"] as const;
/** A value of {@link LOGIN_SOURCES}. */
export type LoginSource = (typeof LOGIN_SOURCES)[number];

/** Hosts a callback may use: loopback only (spec §4.5). `[::1]` is how the URL parser writes ::1. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"] as const;
/** Shortest `state` accepted: 16 characters carry ≥ 96 bits even as hex; our tools send 43. */
export const MIN_STATE_LENGTH = 16;
/** Longest `state` accepted. */
export const MAX_STATE_LENGTH = 512;
/** Longest `redirect_uri` accepted. */
export const MAX_REDIRECT_URI_LENGTH = 2048;

/** The checked parameters of `GET /api/persona/cli/login`. */
export interface LoginParameters {
  state: string;
  /** The callback, rebuilt from its parsed parts: `http://host:port/path?query`. */
  redirectUri: string;
  /** The callback's origin, e.g. `http://127.0.0.1:53682`. */
  callbackOrigin: string;
  /** Host and port shown on the consent page, e.g. `127.0.0.1:53682`. */
  callbackHostPort: string;
  recipient: RecipientKey;
  /** The raw `recipient_public_key_jwk`, passed on unchanged by the consent form. */
  recipientEncoded: string;
  name: string | undefined;
  source: LoginSource | undefined;
}

/** A refused parameter: which one and why (shown on the 400 page). */
export interface LoginParameterProblem {
  parameter: string;
  reason: string;
}

type Check<T> = { ok: true; value: T } | ({ ok: false } & LoginParameterProblem);

const UNRESERVED = /^[A-Za-z0-9._~-]+$/u;
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;

function single(
  parameters: Record<string, unknown>,
  name: string,
): { present: false } | { present: true; value: string } | { present: true; value: undefined } {
  const value = parameters[name];
  if (value === undefined) return { present: false };
  return { present: true, value: typeof value === "string" ? value : undefined };
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
): { ok: true; url: string; origin: string; hostPort: string } | { ok: false; reason: string } {
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

/**
 * Checks every parameter of the browser login route (spec §4.5), in the
 * order state, redirect_uri, recipient_public_key_jwk, name, source. A
 * parameter given more than once is refused.
 *
 * @param parameters - the query (GET) or the consent form (POST)
 * @returns the parameters, or the first one refused and why
 */
export async function checkLoginParameters(
  parameters: Record<string, unknown>,
): Promise<Check<LoginParameters>> {
  const refuse = (parameter: string, reason: string) => ({ ok: false as const, parameter, reason });

  const state = single(parameters, "state");
  if (!state.present) return refuse("state", "is required");
  if (state.value === undefined) return refuse("state", "must be given once");
  if (state.value.length < MIN_STATE_LENGTH || state.value.length > MAX_STATE_LENGTH) {
    return refuse(
      "state",
      `must be ${MIN_STATE_LENGTH}–${MAX_STATE_LENGTH} characters of random value, not ${state.value.length}`,
    );
  }
  if (!UNRESERVED.test(state.value)) {
    return refuse("state", "may contain only the characters A–Z a–z 0–9 - . _ ~");
  }

  const redirect = single(parameters, "redirect_uri");
  if (!redirect.present) return refuse("redirect_uri", "is required");
  if (redirect.value === undefined) return refuse("redirect_uri", "must be given once");
  const callback = checkRedirectUri(redirect.value);
  if (!callback.ok) return refuse("redirect_uri", callback.reason);

  const jwk = single(parameters, "recipient_public_key_jwk");
  if (!jwk.present) return refuse("recipient_public_key_jwk", "is required");
  if (jwk.value === undefined) return refuse("recipient_public_key_jwk", "must be given once");
  const recipient = await readRecipientKey(jwk.value);
  if (!recipient.ok) return refuse("recipient_public_key_jwk", recipient.reason);

  const name = single(parameters, "name");
  let keyName: string | undefined;
  if (name.present) {
    if (name.value === undefined) return refuse("name", "must be given once");
    const checked = checkKeyName(name.value);
    if (!checked.ok) return refuse("name", checked.reason);
    keyName = checked.name;
  }

  const source = single(parameters, "source");
  let loginSource: LoginSource | undefined;
  if (source.present) {
    if (source.value === undefined) return refuse("source", "must be given once");
    if (!(LOGIN_SOURCES as readonly string[]).includes(source.value)) {
      return refuse("source", `must be one of ${LOGIN_SOURCES.join(", ")}`);
    }
    loginSource = source.value as LoginSource;
  }

  return {
    ok: true,
    value: {
      state: state.value,
      redirectUri: callback.url,
      callbackOrigin: callback.origin,
      callbackHostPort: callback.hostPort,
      recipient: recipient.value,
      recipientEncoded: jwk.value,
      name: keyName,
      source: loginSource,
    },
  };
}
