import type { Request } from "express";
import { ServiceError } from "../http/service-error.js";
import { checkApiKeyShape } from "../keys/api-key.js";
import type { KeyOwner, KeyStore } from "../keys/key-store.js";

/**
 * Reads the API key from `x-api-key` or `Authorization: Bearer` (docs/API.md §5.1–5.2).
 * Every occurrence of either header is read (`headersDistinct`: Node keeps
 * only the first `Authorization` in `headers`), so two headers carrying
 * different keys are refused as an ambiguous credential.
 *
 * @returns the key, or undefined when neither header is present
 * @throws {ServiceError} `invalid_api_key` for a non-Bearer Authorization
 *   header, or headers carrying different keys
 */
export function readApiKey(request: Request): string | undefined {
  const keys = new Set<string>();
  for (const value of request.headersDistinct["x-api-key"] ?? []) {
    if (value.trim() !== "") keys.add(value.trim());
  }
  for (const authorization of request.headersDistinct.authorization ?? []) {
    const match = /^Bearer\s+(\S+)\s*$/iu.exec(authorization);
    if (match?.[1] === undefined) {
      throw new ServiceError(
        "invalid_api_key",
        "Authorization header must be of the form: Bearer <API_KEY>",
      );
    }
    keys.add(match[1]);
  }
  if (keys.size > 1) {
    throw new ServiceError(
      "invalid_api_key",
      "the request carries different keys (in x-api-key or Authorization headers); send one API key",
    );
  }
  return keys.values().next().value;
}

/**
 * Authenticates a request by its API key (docs/API.md §5.1, §7 row 401).
 *
 * @returns the key's record and its account's status
 * @throws {ServiceError} `missing_api_key` or `invalid_api_key` (401)
 */
export async function authenticate(request: Request, keys: KeyStore): Promise<KeyOwner> {
  const key = readApiKey(request);
  if (key === undefined) {
    throw new ServiceError(
      "missing_api_key",
      "missing API key: send it in the x-api-key header or as Authorization: Bearer <API_KEY>",
    );
  }
  const shape = checkApiKeyShape(key);
  if (shape === "malformed") {
    throw new ServiceError("invalid_api_key", "invalid API key: it is not a Persona Reply key");
  }
  if (shape === "checksum_mismatch") {
    throw new ServiceError(
      "invalid_api_key",
      "invalid API key: its checksum does not match, so it was probably mistyped or cut short",
    );
  }
  const owner = await keys.findByKey(key);
  if (owner === undefined) throw new ServiceError("invalid_api_key", "invalid API key");
  if (owner.revokedAt !== null) {
    throw new ServiceError("invalid_api_key", "invalid API key: this key has been revoked");
  }
  void keys.touch(owner).catch(() => undefined);
  return owner;
}
