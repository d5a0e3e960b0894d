import { randomBytes } from "node:crypto";
import {
  KEY_MANAGEMENT_ALGORITHM,
  LOGIN_PATH,
  LOGIN_QUERY_PARAMETERS,
  type LoginQuery,
  type LoginSource,
  RECIPIENT_KEY_RULES,
} from "@persona-reply/shared";
import { type CryptoKey, exportJWK, generateKeyPair } from "jose";

/** RSA modulus of the one-time key pair, in bits: the smallest the login route accepts. */
export const LOGIN_KEY_BITS = RECIPIENT_KEY_RULES.minModulusBits;

/** The secrets of one login attempt; they live only in this process's memory. */
export interface LoginSecrets {
  /** 32 random bytes, base64url (256 bits; the spec asks for a random value; we take ≥ 128 bits). */
  state: string;
  /** Decrypts the `encrypted_api_key` the service sends back. */
  privateKey: CryptoKey;
  /** base64url of the public JWK, for `recipient_public_key_jwk`. */
  encodedPublicKey: string;
}

/** Makes a fresh `state` and a one-time RSA-OAEP-256 key pair. */
export async function createLoginSecrets(): Promise<LoginSecrets> {
  const { publicKey, privateKey } = await generateKeyPair(KEY_MANAGEMENT_ALGORITHM, {
    modulusLength: LOGIN_KEY_BITS,
  });
  const jwk = await exportJWK(publicKey);
  // Only the public members travel; alg and use say what the key is for.
  const publicJwk = { kty: jwk.kty, n: jwk.n, e: jwk.e, alg: KEY_MANAGEMENT_ALGORITHM, use: "enc" };
  return {
    state: randomBytes(32).toString("base64url"),
    privateKey,
    encodedPublicKey: Buffer.from(JSON.stringify(publicJwk)).toString("base64url"),
  };
}

/**
 * Builds the URL of the browser login route, `GET {baseUrl}/api/persona/cli/login`
 * (docs/API.md §4.5), with `state`, `redirect_uri`, `recipient_public_key_jwk` and,
 * when given, `name` and `source`.
 *
 * @param baseUrl - the site origin (a path prefix for a reverse proxy is kept)
 */
export function buildLoginUrl(input: {
  baseUrl: string;
  state: string;
  redirectUri: string;
  encodedPublicKey: string;
  name?: string | undefined;
  source?: LoginSource | undefined;
}): string {
  const url = new URL(`${input.baseUrl.replace(/\/+$/u, "")}${LOGIN_PATH}`);
  const query: LoginQuery = {
    state: input.state,
    redirect_uri: input.redirectUri,
    recipient_public_key_jwk: input.encodedPublicKey,
    name: input.name,
    source: input.source,
  };
  for (const parameter of LOGIN_QUERY_PARAMETERS) {
    const value = query[parameter];
    if (value !== undefined) url.searchParams.set(parameter, value);
  }
  return url.href;
}
