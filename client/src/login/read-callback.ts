import { timingSafeEqual } from "node:crypto";
import {
  CONTENT_ENCRYPTION_ALGORITHM,
  KEY_MANAGEMENT_ALGORITHM,
  LOGIN_DENIED_ERROR,
} from "@persona-reply/shared";
import { type CryptoKey, compactDecrypt } from "jose";
import { BrowserLoginError } from "./login-errors.js";

/** Longest API key accepted from a callback (ours are 42 characters). */
const MAX_KEY_LENGTH = 256;
const KEY_CHARACTERS = /^[\x21-\x7e]+$/u;

function sameState(received: string, expected: string): boolean {
  const left = Buffer.from(received);
  const right = Buffer.from(expected);
  // Constant time, so the state cannot be guessed a character at a time.
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Reads the service's redirect to the loopback callback (docs/API.md §4.5): checks
 * `state` first — a different one means the answer belongs to another login
 * (or was forged) and is refused — then `error`, then decrypts
 * `encrypted_api_key` (compact JWE, only RSA-OAEP-256 + A256GCM accepted).
 *
 * @param query - the callback URL's query
 * @returns the API key (keep it in memory only until it is stored)
 * @throws {BrowserLoginError} `state_mismatch`, `denied` or `invalid_response`
 */
export async function readCallback(
  query: URLSearchParams,
  expectedState: string,
  privateKey: CryptoKey,
): Promise<string> {
  const state = query.getAll("state");
  if (state.length !== 1 || !sameState(state[0] ?? "", expectedState)) {
    throw new BrowserLoginError(
      "state_mismatch",
      "the browser's answer does not belong to this login (state mismatch); it was refused and nothing was saved. Run the login again.",
    );
  }
  const error = query.get("error");
  if (error !== null) {
    if (error === LOGIN_DENIED_ERROR) {
      throw new BrowserLoginError(
        "denied",
        "the login was denied in the browser; no key was created",
      );
    }
    throw new BrowserLoginError(
      "invalid_response",
      `the service answered with the error "${error.slice(0, 100)}"; no key was saved`,
    );
  }
  const encrypted = query.getAll("encrypted_api_key");
  if (encrypted.length !== 1) {
    throw new BrowserLoginError(
      "invalid_response",
      "the browser's answer holds no encrypted_api_key; no key was saved",
    );
  }
  let plaintext: Uint8Array;
  try {
    ({ plaintext } = await compactDecrypt(encrypted[0] ?? "", privateKey, {
      keyManagementAlgorithms: [KEY_MANAGEMENT_ALGORITHM],
      contentEncryptionAlgorithms: [CONTENT_ENCRYPTION_ALGORITHM],
    }));
  } catch (cause) {
    throw new BrowserLoginError(
      "invalid_response",
      "the encrypted key could not be decrypted with this login's key; nothing was saved",
      { cause },
    );
  }
  const key = new TextDecoder("utf-8", { fatal: true }).decode(plaintext);
  if (key.length > MAX_KEY_LENGTH || !KEY_CHARACTERS.test(key)) {
    throw new BrowserLoginError("invalid_response", "the decrypted value is not an API key");
  }
  return key;
}
