import type { Database } from "../storage/store.js";
import type { Endpoint } from "./usage-record.js";

/** Days the `/usage` page covers: today (UTC) and the 29 before it. */
export const USAGE_PAGE_DAYS = 30;

const DAY_MS = 86_400_000;

/** One line of the page's figures: an account's use of a persona through one endpoint on one UTC day. */
export interface UsageDayLine {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  /** null for requests refused before a persona was known. */
  personaId: string | null;
  endpoint: Endpoint;
  requests: number;
  /** Requests answered 200. */
  served: number;
  inputTokens: number;
  outputTokens: number;
  /** Spend: what the requests cost, micro-units of the account's currency. */
  costMicros: number;
}

/** The balance at the end of one UTC day, from the ledger. */
export interface BalancePoint {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  /** micro-units */
  balanceMicros: number;
}

/** What the `/usage` page and its CSV show for one account. */
export interface UsageSummary {
  /** The period's days, oldest first (`YYYY-MM-DD`, UTC), {@link USAGE_PAGE_DAYS} of them. */
  days: string[];
  /** Non-empty lines only, by day, then persona, then endpoint. */
  lines: UsageDayLine[];
  /** Persona IDs seen in the lines → their names (IDs of deleted personas are missing). */
  personaNames: Map<string, string>;
  currency: string;
  /** The balance now and what requests in flight hold of it, micro-units. */
  balanceMicros: number;
  reservedMicros: number;
  /** The balance at the end of each day of the period (today: now). */
  balanceCourse: BalancePoint[];
  /**
   * The first day the account is known to have existed (`YYYY-MM-DD`, UTC):
   * the earliest of its creation, its first ledger entry and its first usage
   * in the period. Charts start there, not at a zero before the account was
   * opened; it may lie before the period.
   */
  startDay: string;
}

/** `YYYY-MM-DD` of a time, UTC. */
export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The period's days, oldest first, ending with today (UTC). */
export function periodDays(now: number, count = USAGE_PAGE_DAYS): string[] {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  return Array.from({ length: count }, (_unused, index) =>
    utcDay(today - (count - 1 - index) * DAY_MS),
  );
}

/**
 * Reads an account's usage and balance for the `/usage` page: the last
 * {@link USAGE_PAGE_DAYS} UTC days of usage rows summed per day, persona
 * and endpoint, and the balance at the end of each day (the balance now,
 * less what the ledger added after that day: its entries' daily sums, less
 * the day's usage charges, migration 0019).
 *
 * Bounded and indexed: it reads the daily totals that triggers keep
 * (migration 0008), a primary-key range of at most days × personas ×
 * endpoints rows and one row per day of the ledger, however many requests
 * the account made. The same SQL runs on SQLite and PostgreSQL.
 *
 * @param now - Unix milliseconds (the end of the period)
 * @returns undefined when no such account exists
 */
export async function readUsageSummary(
  database: Database,
  accountId: string,
  now = Date.now(),
): Promise<UsageSummary | undefined> {
  const days = periodDays(now);
  const firstDay = days[0] as string;
  const account = await database
    .selectFrom("accounts")
    .select(["currency", "balance_micros", "reserved_micros", "created_at"])
    .where("id", "=", accountId)
    .executeTakeFirst();
  if (account === undefined) return undefined;

  const [usageRows, entryRows, firstEntry] = await Promise.all([
    database
      .selectFrom("usage_daily_totals")
      .select([
        "day",
        "persona_id",
        "endpoint",
        "requests",
        "served",
        "input_tokens",
        "output_tokens",
        "cost_micros",
        "charged_micros",
      ])
      .where("account_id", "=", accountId)
      .where("day", ">=", firstDay)
      .where((eb) => eb.or([eb("requests", ">", 0), eb("charged_micros", "<>", 0)]))
      .execute(),
    database
      .selectFrom("balance_daily_totals")
      .select(["day", "amount_micros"])
      .where("account_id", "=", accountId)
      .where("day", ">=", firstDay)
      .execute(),
    // The first day of the ledger: one end of the primary key (account, day).
    database
      .selectFrom("balance_daily_totals")
      .select((select) => select.fn.min("day").as("day"))
      .where("account_id", "=", accountId)
      .executeTakeFirst(),
  ]);

  const lines: UsageDayLine[] = usageRows
    .filter((row) => Number(row.requests) > 0)
    .map((row) => ({
      day: row.day,
      personaId: row.persona_id === "" ? null : row.persona_id,
      endpoint: row.endpoint as Endpoint,
      requests: Number(row.requests),
      served: Number(row.served),
      inputTokens: Number(row.input_tokens),
      outputTokens: Number(row.output_tokens),
      costMicros: Number(row.cost_micros),
    }));
  lines.sort(
    (a, b) =>
      a.day.localeCompare(b.day) ||
      (a.personaId ?? "").localeCompare(b.personaId ?? "") ||
      a.endpoint.localeCompare(b.endpoint),
  );

  const personaIds = [
    ...new Set(lines.flatMap((line) => (line.personaId === null ? [] : [line.personaId]))),
  ];
  const personaNames = new Map<string, string>();
  if (personaIds.length > 0) {
    const personas = await database
      .selectFrom("personas")
      .select(["id", "name"])
      .where("id", "in", personaIds)
      .execute();
    for (const persona of personas) personaNames.set(persona.id, persona.name);
  }

  // Walk back from the balance now: the end of a day is the next day's end less what that day
  // added: its entries (and charges of 0017–0019), less its usage charges since 0019.
  const addedOn = new Map(entryRows.map((row) => [row.day, Number(row.amount_micros)]));
  for (const row of usageRows) {
    addedOn.set(row.day, (addedOn.get(row.day) ?? 0) - Number(row.charged_micros));
  }
  const balanceMicros = Number(account.balance_micros);
  const balanceCourse: BalancePoint[] = [];
  let balance = balanceMicros;
  for (let index = days.length - 1; index >= 0; index -= 1) {
    const current = days[index] as string;
    balanceCourse.unshift({ day: current, balanceMicros: balance });
    balance -= addedOn.get(current) ?? 0;
  }

  // `YYYY-MM-DD` days sort as text: the first is the earliest.
  const [startDay = firstDay] = [
    utcDay(Date.parse(account.created_at)),
    firstEntry?.day,
    lines[0]?.day,
  ]
    .filter((day): day is string => typeof day === "string" && day !== "")
    .sort();

  return {
    days,
    lines,
    personaNames,
    currency: account.currency,
    balanceMicros,
    reservedMicros: Number(account.reserved_micros),
    balanceCourse,
    startDay,
  };
}
