import { KEY_MANAGEMENT_ALGORITHM, RECIPIENT_KEY_RULES } from "@persona-reply/shared";
import { type CryptoKey, importJWK, type JWK } from "jose";

const {
  minModulusBits: MIN_MODULUS_BITS,
  maxModulusBits: MAX_MODULUS_BITS,
  publicExponent: PUBLIC_EXPONENT,
  maxEncodedLength: MAX_ENCODED_JWK_LENGTH,
  privateMembers: PRIVATE_MEMBERS,
} = RECIPIENT_KEY_RULES;

/** A checked recipient key: its JWK (public members only) and the imported key. */
export interface RecipientKey {
  jwk: JWK;
  key: CryptoKey;
  modulusBits: number;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/u;

/** The value of a base64url big-endian integer, or undefined past 2^53 (no usable exponent is). */
function smallInteger(encoded: string): number | undefined {
  let value = 0;
  for (const byte of Buffer.from(encoded, "base64url")) {
    value = value * 256 + byte;
    if (value > Number.MAX_SAFE_INTEGER) return undefined;
  }
  return value;
}

function modulusBits(n: string): number {
  const bytes = Buffer.from(n, "base64url");
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  if (start === bytes.length) return 0;
  return (bytes.length - start - 1) * 8 + (bytes[start] ?? 0).toString(2).length;
}

/**
 * Reads `recipient_public_key_jwk` of the login route (docs/API.md §4.5): base64url
 * of a JSON RSA public JWK following `RECIPIENT_KEY_RULES` of shared
 * (exponent 65537, modulus of 2048–8192 bits, no private members), and when `alg`, `use` or `key_ops` are present they must
 * allow RSA-OAEP-256 encryption.
 *
 * @returns the key, or the reason it is refused (said to the person on the 400 page)
 */
export async function readRecipientKey(
  encoded: string,
): Promise<{ ok: true; value: RecipientKey } | { ok: false; reason: string }> {
  const refuse = (reason: string) => ({ ok: false as const, reason });
  if (encoded.length > MAX_ENCODED_JWK_LENGTH) {
    return refuse(`is longer than ${MAX_ENCODED_JWK_LENGTH} characters`);
  }
  // Padding is tolerated; anything outside the base64url alphabet is not.
  const unpadded = encoded.replace(/={1,2}$/u, "");
  if (!BASE64URL.test(unpadded)) return refuse("must be base64url-encoded (A–Z a–z 0–9 - _)");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(unpadded, "base64url").toString("utf8"));
  } catch {
    return refuse("must be base64url of a JSON JWK, but it does not decode to JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return refuse("must decode to a JSON object (a JWK)");
  }
  const jwk = parsed as Record<string, unknown>;
  if (jwk.kty !== "RSA") {
    return refuse(`must be an RSA key (kty "RSA"), not ${JSON.stringify(jwk.kty ?? null)}`);
  }
  const present = PRIVATE_MEMBERS.filter((member) => member in jwk);
  if (present.length > 0) {
    return refuse(
      `must be a public key, but it contains private key members (${present.join(", ")}); send only kty, n and e`,
    );
  }
  if (typeof jwk.n !== "string" || !BASE64URL.test(jwk.n)) {
    return refuse('must have the modulus "n" as a base64url string');
  }
  if (typeof jwk.e !== "string" || !BASE64URL.test(jwk.e)) {
    return refuse('must have the exponent "e" as a base64url string');
  }
  if (smallInteger(jwk.e) !== PUBLIC_EXPONENT) {
    return refuse(`must have the public exponent e = ${PUBLIC_EXPONENT} ("AQAB")`);
  }
  const bits = modulusBits(jwk.n);
  if (bits < MIN_MODULUS_BITS) {
    return refuse(`must have an RSA modulus of at least ${MIN_MODULUS_BITS} bits, not ${bits}`);
  }
  if (bits > MAX_MODULUS_BITS) {
    return refuse(`must have an RSA modulus of at most ${MAX_MODULUS_BITS} bits, not ${bits}`);
  }
  if (jwk.alg !== undefined && jwk.alg !== KEY_MANAGEMENT_ALGORITHM) {
    return refuse(`has alg ${JSON.stringify(jwk.alg)}; only ${KEY_MANAGEMENT_ALGORITHM} is used`);
  }
  if (jwk.use !== undefined && jwk.use !== "enc") {
    return refuse(`has use ${JSON.stringify(jwk.use)}; it must be "enc"`);
  }
  if (
    jwk.key_ops !== undefined &&
    !(Array.isArray(jwk.key_ops) && jwk.key_ops.some((op) => op === "encrypt" || op === "wrapKey"))
  ) {
    return refuse('has key_ops that allow neither "encrypt" nor "wrapKey"');
  }
  const publicJwk: JWK = { kty: "RSA", n: jwk.n, e: jwk.e };
  try {
    const key = await importJWK(publicJwk, KEY_MANAGEMENT_ALGORITHM);
    if (key instanceof Uint8Array) return refuse("is not an RSA public key");
    return { ok: true, value: { jwk: publicJwk, key, modulusBits: bits } };
  } catch {
    return refuse("is not a usable RSA public key");
  }
}
