import { lockPersona } from "../personas/persona-lock.js";
import type { Database } from "../storage/store.js";
import { parseSamplingSettings, type SamplingSettings } from "./sampling-settings.js";

/** A persona's online evaluation as stored (`persona sample`, `persona status`). */
export interface StoredSampling {
  /** Percent of live answers scored; 0 when sampling is off. */
  percent: number;
  settings: SamplingSettings | null;
}

/**
 * Sets a persona's online evaluation on its `personas` row (migration
 * 0027), so the change feed's trigger tells every instance within about a
 * second, as a canary's start does. `percent` 0 switches it off (the
 * settings are cleared too).
 *
 * @param percent - a whole number from 0 to 100
 * @returns false when no persona has this ID
 * @throws {RangeError} for a share outside 0–100
 */
export async function setSampling(
  database: Database,
  id: string,
  percent: number,
  settings: SamplingSettings | null,
): Promise<boolean> {
  if (!Number.isInteger(percent) || percent < 0 || percent > 100) {
    throw new RangeError("the share of answers sampled is a whole number of percent from 0 to 100");
  }
  const now = new Date().toISOString();
  return database.transaction().execute(async (transaction) => {
    const row = await lockPersona(transaction, id, now);
    if (row === undefined) return false;
    await transaction
      .updateTable("personas")
      .set({
        sample_percent: percent === 0 ? null : percent,
        sample_settings: percent === 0 || settings === null ? null : JSON.stringify(settings),
      })
      .where("id", "=", id)
      .execute();
    return true;
  });
}

/** A persona's online evaluation as stored, past every cache; undefined when no persona has this ID. */
export async function readSampling(
  database: Database,
  id: string,
): Promise<StoredSampling | undefined> {
  const row = await database
    .selectFrom("personas")
    .select(["sample_percent", "sample_settings"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const percent = row.sample_percent === null ? 0 : Number(row.sample_percent);
  return {
    percent,
    settings: percent === 0 ? null : (parseSamplingSettings(row.sample_settings) ?? null),
  };
}
