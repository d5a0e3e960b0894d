import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Fewest characters of a bearer token given by the user (`PERSONA_MCP_HTTP_TOKEN`). */
export const MINIMUM_TOKEN_LENGTH = 32;

/**
 * A new bearer token for the HTTP transport: 32 random bytes (256 bits) from
 * the system's cryptographic generator, as 43 base64url characters.
 *
 * @example
 * const token = createBearerToken(); // e.g. "q9V1…" (43 characters)
 */
export function createBearerToken(): string {
  return randomBytes(32).toString("base64url");
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** What {@link readBearerToken} found in an `Authorization` header. */
export type BearerCredential = "missing" | "invalid" | "valid";

/**
 * Checks an `Authorization` header against the expected bearer token
 * (RFC 6750 §2.1: `Bearer <token>`, the scheme case-insensitive). The
 * comparison takes the same time whatever the token sent: both sides are
 * hashed with SHA-256 to equal-length digests, compared with
 * `crypto.timingSafeEqual`.
 *
 * @param header - the request's `Authorization` value, if any
 * @param expected - the server's token
 * @returns `missing` without a bearer credential, `invalid` for a wrong one, `valid`
 *
 * @example
 * readBearerToken(request.headers.authorization, token) === "valid";
 */
export function readBearerToken(header: string | undefined, expected: string): BearerCredential {
  const match = /^Bearer +(\S+) *$/iu.exec(header ?? "");
  if (match?.[1] === undefined) return "missing";
  return timingSafeEqual(digest(match[1]), digest(expected)) ? "valid" : "invalid";
}
