import { createHash, randomInt } from "node:crypto";
import { crc32 } from "node:zlib";

/** Every API key starts with this prefix, so scanners and people recognize it. */
export const API_KEY_PREFIX = "prk_";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 32 base62 characters carry 32 × log2(62) ≈ 190 bits of randomness (at least 160 are required). */
const RANDOM_LENGTH = 32;
/** CRC32 fits in 6 base62 characters (62^6 > 2^32). */
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(
  `^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH}}[0-9A-Za-z]{${CHECKSUM_LENGTH}}$`,
);

function base62(value: number, width: number): string {
  let text = "";
  let rest = value;
  for (let index = 0; index < width; index++) {
    text = ALPHABET[rest % 62] + text;
    rest = Math.floor(rest / 62);
  }
  return text;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_LENGTH);
}

/**
 * Makes a new API key: `prk_` + 32 random base62 characters + a 6-character
 * CRC32 checksum of what precedes it (the scheme GitHub's tokens use), so a
 * typo is told apart from a revoked key without a database lookup.
 *
 * @returns the plaintext key; show it once and store only {@link hashApiKey}
 */
export function generateApiKey(): string {
  let random = "";
  for (let index = 0; index < RANDOM_LENGTH; index++) random += ALPHABET[randomInt(62)];
  const body = API_KEY_PREFIX + random;
  return body + checksum(body);
}

/** How a presented key string looks before any lookup. */
export type ApiKeyShape = "valid" | "malformed" | "checksum_mismatch";

/**
 * Checks a presented key's format and checksum.
 *
 * @returns `valid`, `malformed` (wrong prefix, length or characters) or
 *   `checksum_mismatch` (right shape, but mistyped or truncated)
 */
export function checkApiKeyShape(key: string): ApiKeyShape {
  if (!KEY_PATTERN.test(key)) return "malformed";
  const body = key.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === key.slice(-CHECKSUM_LENGTH) ? "valid" : "checksum_mismatch";
}

/**
 * The stored form of a key: SHA-256, hex. Keys carry ≥ 160 random bits, so a
 * fast hash is enough (no password-style stretching needed).
 */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/**
 * The masked form shown in lists and logs: prefix and last four characters.
 *
 * @example
 * maskApiKey("prk_…9xYz") // "prk_…9xYz"
 */
export function maskApiKey(key: string): string {
  const prefix = key.startsWith(API_KEY_PREFIX) ? API_KEY_PREFIX : "";
  return `${prefix}…${key.slice(-4)}`;
}
