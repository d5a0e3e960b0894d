import { CONTENT_ENCRYPTION_ALGORITHM, KEY_MANAGEMENT_ALGORITHM } from "@persona-reply/shared";
import { CompactEncrypt, type CryptoKey } from "jose";

/**
 * Encrypts an API key to the login caller's public key as a compact JWE
 * (RFC 7516) with `RSA-OAEP-256` key management and `A256GCM` content
 * encryption (docs/API.md §4.5). Only the holder of the private key — the
 * command-line tool or plugin that started the login — can read it.
 *
 * @param apiKey - the plaintext key; it is the JWE's whole payload (UTF-8)
 * @param recipient - the caller's RSA public key (see readRecipientKey)
 * @returns the compact serialization: five base64url parts joined by dots
 */
export async function encryptApiKey(apiKey: string, recipient: CryptoKey): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(apiKey))
    .setProtectedHeader({ alg: KEY_MANAGEMENT_ALGORITHM, enc: CONTENT_ENCRYPTION_ALGORITHM })
    .encrypt(recipient);
}
