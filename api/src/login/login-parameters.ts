import {
  type LoginQuery,
  type LoginSource,
  loginSourceSchema,
  loginStateSchema,
  redirectUriSchema,
} from "@persona-reply/shared";
import { checkKeyName } from "../playground/account-access.js";
import { type RecipientKey, readRecipientKey } from "./recipient-key.js";

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

function single(
  parameters: Record<string, unknown>,
  name: keyof LoginQuery,
): { present: false } | { present: true; value: string } | { present: true; value: undefined } {
  const value = parameters[name];
  if (value === undefined) return { present: false };
  return { present: true, value: typeof value === "string" ? value : undefined };
}

/** The first problem zod found, as the 400 page's reason. */
function firstReason(error: { issues: readonly { message: string }[] }): string {
  return error.issues[0]?.message ?? "is not valid";
}

/**
 * Checks every parameter of the browser login route (docs/API.md §4.5), in the
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
  const checkedState = loginStateSchema.safeParse(state.value);
  if (!checkedState.success) return refuse("state", firstReason(checkedState.error));

  const redirect = single(parameters, "redirect_uri");
  if (!redirect.present) return refuse("redirect_uri", "is required");
  if (redirect.value === undefined) return refuse("redirect_uri", "must be given once");
  const checkedCallback = redirectUriSchema.safeParse(redirect.value);
  if (!checkedCallback.success) return refuse("redirect_uri", firstReason(checkedCallback.error));
  const callback = checkedCallback.data;

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
    const checkedSource = loginSourceSchema.safeParse(source.value);
    if (!checkedSource.success) return refuse("source", firstReason(checkedSource.error));
    loginSource = checkedSource.data;
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
