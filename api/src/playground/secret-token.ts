import { createHash, randomBytes } from "node:crypto";

/**
 * Makes a bearer secret for a sign-in link or a session cookie: 32 random
 * bytes (256 bits; the issue asks for at least 128), base64url.
 */
export function generateSecretToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * The stored form of a secret token: SHA-256, hex. The tokens carry 256
 * random bits, so a fast hash is enough; a leaked table yields no usable token.
 */
export function hashSecretToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
