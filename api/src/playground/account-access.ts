import { PageError } from "../pages/page-errors.js";
import type { Services } from "../services.js";

/** Most active keys one account may hold; creating more is refused (a guard, not a quota). */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 100;
/** Longest key name accepted. */
export const MAX_KEY_NAME_LENGTH = 100;

/**
 * Checks that a signed-in person's account is active before it creates keys
 * or uses a persona (docs/API.md §7: 403 for an account that is not active).
 *
 * @throws {PageError} 403 when the account is missing or not active
 */
export async function requireActiveAccount(
  services: Pick<Services, "accounts">,
  accountId: string,
): Promise<void> {
  const account = await services.accounts.find(accountId);
  if (account?.status !== "active") {
    throw new PageError(403, "Your account is not active, so it cannot use keys or personas.");
  }
}

/**
 * Checks a key name typed by a person or passed to the login route.
 *
 * @returns the trimmed name, or a reason it is refused
 */
export function checkKeyName(
  name: string,
): { ok: true; name: string } | { ok: false; reason: string } {
  const trimmed = name.trim();
  if (trimmed === "") return { ok: false, reason: "must not be empty" };
  if (trimmed.length > MAX_KEY_NAME_LENGTH) {
    return { ok: false, reason: `must be at most ${MAX_KEY_NAME_LENGTH} characters` };
  }
  // Control characters would garble lists and logs.
  if (/\p{Cc}/u.test(trimmed)) return { ok: false, reason: "must not contain control characters" };
  return { ok: true, name: trimmed };
}

/**
 * Refuses a new key when the account already has the most active keys allowed.
 *
 * @throws {PageError} 409 at {@link MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys
 */
export async function requireRoomForKey(
  services: Pick<Services, "accounts" | "keys">,
  accountId: string,
): Promise<void> {
  const active = (await services.keys.list(accountId)).filter((key) => key.revokedAt === null);
  if (active.length >= MAX_ACTIVE_KEYS_PER_ACCOUNT) {
    throw new PageError(
      409,
      `This account already has ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys. Revoke one first.`,
    );
  }
}
