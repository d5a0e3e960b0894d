/** Keys shorter than this are masked whole: their last four would give away too much. */
const SHORTEST_MASKABLE_KEY = 12;

/** A key-shaped string: the `prk_` prefix (or any short lowercase prefix) and a long body. */
const KEY_PATTERN = /\b[a-z]{2,8}_[0-9A-Za-z]{16,}\b/gu;

/**
 * Masks an API key for display: its prefix (up to and including the first
 * underscore) and its last four characters, e.g. `prk_…abcd` (keys
 * are shown once, masked everywhere else). Keys shorter than 12 characters
 * are shown as `…` alone.
 *
 * @param key - the full API key
 * @returns the masked form, safe to print or log
 *
 * @example
 * maskApiKey(process.env.SERVICE_API_KEY ?? ""); // e.g. "prk_…abcd"
 */
export function maskApiKey(key: string): string {
  if (key.length < SHORTEST_MASKABLE_KEY) return "…";
  const underscore = key.indexOf("_");
  const prefix = underscore > 0 && underscore <= 8 ? key.slice(0, underscore + 1) : "";
  return `${prefix}…${key.slice(-4)}`;
}

/**
 * Replaces every secret in `text` by its masked form: the given secrets
 * exactly, and anything shaped like an API key (`prk_` followed by 16 or
 * more letters and digits). Used on every error message and body the client
 * keeps, so an API key never reaches a log through an error.
 *
 * @param text - text that may contain a key, e.g. a server's error body
 * @param secrets - known secrets to mask (empty strings are ignored)
 * @returns the text with every secret masked
 *
 * @example
 * redactSecrets(`bad key ${key}`, [key]); // "bad key prk_…abcd"
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0) result = result.split(secret).join(maskApiKey(secret));
  }
  return result.replace(KEY_PATTERN, (match) => maskApiKey(match));
}
