import { sql } from "kysely";
import type { Database } from "../storage/store.js";

/** The start of the UTC day after `day` (`YYYY-MM-DD`), ISO 8601 UTC. */
function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
}

/** One UTC day a retention run works through: rows in [start, end). */
export interface RetentionDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  /** ISO 8601 UTC, the day's midnight. */
  start: string;
  /** ISO 8601 UTC: the next day's midnight, or the run's bound when that comes first. */
  end: string;
}

/**
 * The first UTC day in [from, to) that holds usage rows: retention
 * archives and removes usage a day at a time, so each day's rows go to
 * that day's archive file and each delete reads one day's index range.
 *
 * @param from - ISO 8601 UTC (`""`: from the oldest row)
 * @param to - ISO 8601 UTC, excluded (the run's cutoff)
 * @returns that day's bounds (its end is at most `to`), or null when no row is left in [from, to)
 */
export async function firstDayWithRows(
  database: Database,
  from: string,
  to: string,
): Promise<RetentionDay | null> {
  const oldest = await database
    .selectFrom("usage_records")
    .select(sql<string | null>`min(created_at)`.as("created_at"))
    .where("created_at", ">=", from)
    .where("created_at", "<", to)
    .executeTakeFirst();
  if (oldest?.created_at == null) return null;
  const day = oldest.created_at.slice(0, 10);
  const end = nextDay(day) < to ? nextDay(day) : to;
  return { day, start: `${day}T00:00:00.000Z`, end };
}
