import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from "node:crypto";
import type { Database } from "../storage/database.js";

/** How long a new key waits to be shown: 10 minutes, in milliseconds. */
export const KEY_FLASH_LIFETIME_MS = 10 * 60_000;

/** A new key to show once: its name and the key itself. */
export interface KeyFlash {
  name: string;
  key: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The AES-256 key of one flash: HKDF-SHA256 of the session's cookie secret, salted with the flash's ID. */
function sealingKey(sessionSecret: string, id: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionSecret, id, "persona-reply key flash", 32));
}

function seal(flash: KeyFlash, sessionSecret: string, id: string, sessionId: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", sealingKey(sessionSecret, id), iv);
  cipher.setAAD(Buffer.from(sessionId));
  const body = Buffer.concat([cipher.update(JSON.stringify(flash), "utf8"), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
}

function unseal(
  sealed: string,
  sessionSecret: string,
  id: string,
  sessionId: string,
): KeyFlash | undefined {
  try {
    const bytes = Buffer.from(sealed, "base64url");
    const decipher = createDecipheriv(
      "aes-256-gcm",
      sealingKey(sessionSecret, id),
      bytes.subarray(0, IV_BYTES),
    );
    decipher.setAAD(Buffer.from(sessionId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const text = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
    const flash = JSON.parse(text) as Partial<KeyFlash>;
    return typeof flash.name === "string" && typeof flash.key === "string"
      ? { name: flash.name, key: flash.key }
      : undefined;
  } catch {
    // Another session's secret, or a damaged row: nothing to show.
    return undefined;
  }
}

/**
 * Keys created on `/keys` waiting to be shown once after the redirect that
 * follows their creation (post, redirect, get), so that reloading the page
 * never creates a second key and the key never travels in a URL. A flash
 * belongs to one session and is sealed (AES-256-GCM) with a key derived from
 * that session's cookie secret: the store holds only the secret's hash, so
 * its rows alone reveal no API key. Taking the flashes deletes them in the
 * same statement, so two tabs cannot both show a key.
 */
export class KeyFlashStore {
  constructor(private readonly database: Database) {}

  /**
   * Keeps a new key for its session's next `GET /keys` (for at most
   * {@link KEY_FLASH_LIFETIME_MS}), and drops expired flashes of any session.
   *
   * @param sessionSecret - the session's cookie secret (never stored)
   */
  async put(
    sessionId: string,
    sessionSecret: string,
    flash: KeyFlash,
    now = new Date(),
  ): Promise<void> {
    const id = randomUUID();
    await this.database
      .deleteFrom("playground_key_flashes")
      .where("expires_at", "<=", now.toISOString())
      .execute();
    await this.database
      .insertInto("playground_key_flashes")
      .values({
        id,
        session_id: sessionId,
        sealed: seal(flash, sessionSecret, id, sessionId),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + KEY_FLASH_LIFETIME_MS).toISOString(),
      })
      .execute();
  }

  /**
   * Takes (and deletes) the session's waiting keys, oldest first; expired
   * ones are deleted without being shown.
   *
   * @param sessionSecret - the session's cookie secret, which unseals them
   */
  async take(sessionId: string, sessionSecret: string, now = new Date()): Promise<KeyFlash[]> {
    const rows = await this.database
      .deleteFrom("playground_key_flashes")
      .where("session_id", "=", sessionId)
      .returning(["id", "sealed", "created_at", "expires_at"])
      .execute();
    return rows
      .filter((row) => row.expires_at > now.toISOString())
      .sort((left, right) => left.created_at.localeCompare(right.created_at))
      .map((row) => unseal(row.sealed, sessionSecret, row.id, sessionId))
      .filter((flash): flash is KeyFlash => flash !== undefined);
  }
}
