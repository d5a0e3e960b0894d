/**
 * When a rate-limit window resets, said the way people say it (not
 * "in 25 hours"): within the hour as a wait ("in 25 minutes"), later
 * the same UTC day as a time ("at 14:00 UTC"), the next UTC day as
 * "tomorrow at 00:00 UTC", and further off with its date ("on 2026-03-07
 * at 09:30 UTC"). Times are UTC, like every day and time of the pages.
 * Pure: the clock is a parameter.
 *
 * @param resetSeconds - the reset instant, Unix seconds (the `reset` of a rate-limit window, docs/API.md §8)
 * @param nowMilliseconds - the present, Unix milliseconds
 * @returns a phrase that completes "Resets …"
 * @example
 * describeReset(Date.parse("2026-03-07T00:00:00Z") / 1000, Date.parse("2026-03-06T23:00:00Z"));
 * // "tomorrow at 00:00 UTC"
 */
export function describeReset(resetSeconds: number, nowMilliseconds: number): string {
  const resetMilliseconds = resetSeconds * 1000;
  const waitMilliseconds = resetMilliseconds - nowMilliseconds;
  if (waitMilliseconds <= 0) return "now";
  const minutes = Math.ceil(waitMilliseconds / 60_000);
  if (minutes < 60) return `in ${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
  const at = new Date(resetMilliseconds).toISOString();
  const time = `${at.slice(11, 16)} UTC`;
  const days = utcDayNumber(resetMilliseconds) - utcDayNumber(nowMilliseconds);
  if (days === 0) return `at ${time}`;
  if (days === 1) return `tomorrow at ${time}`;
  return `on ${at.slice(0, 10)} at ${time}`;
}

/** Whole UTC days since the Unix epoch. */
function utcDayNumber(milliseconds: number): number {
  return Math.floor(milliseconds / 86_400_000);
}
