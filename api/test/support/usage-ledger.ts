import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import type { UsageRecordsTable } from "../../src/storage/ledger-usage-row.js";
import type { Database } from "../../src/storage/store.js";
import { CARRIED_FORWARD_KIND } from "../../src/usage/carried-forward.js";
import { type UsageInput, usageRow } from "../../src/usage/usage-record.js";

// Usage rows written straight into the table, as settlement and
// admission write them (a charged row carries its charge, migration
// 0017), and the daily totals the triggers keep from them for the suites that check retention, partitions and the /usage
// figures against known rows.

/** A usage input where only the account and the cost must be given; see {@link usageInput}. */
export type PartialUsage = Partial<UsageInput> & Pick<UsageInput, "accountId" | "costMicros">;

/**
 * A whole usage input from the fields a test cares about. Defaults: no key
 * and no persona, endpoint `generate`, status 200 when `costMicros` (micro-units)
 * is above 0 and 429 otherwise, 10 input and 20 output tokens, no request id,
 * paid from the balance with no payment reference.
 */
export function usageInput(usage: PartialUsage): UsageInput {
  return {
    apiKeyId: null,
    personaId: null,
    endpoint: "generate",
    status: usage.costMicros > 0 ? 200 : 429,
    inputTokens: 10,
    outputTokens: 20,
    requestId: null,
    paymentMethod: "balance",
    paymentReference: null,
    ...usage,
  };
}

/**
 * The usage input of a refused request (status 429, no tokens, no cost), as
 * admission records it for a request turned away; `usage` overrides any field.
 */
export function refusedUsage(
  usage: Partial<UsageInput> & Pick<UsageInput, "accountId">,
): UsageInput {
  return usageInput({ status: 429, inputTokens: 0, outputTokens: 0, costMicros: 0, ...usage });
}

/**
 * Inserts an active account whose balance (micro-units) is one top-up
 * entry of `balanceMicros`, both at `createdAt` (ISO 8601 UTC): "ledger
 * sum = balance" holds from the start.
 */
export async function insertFundedAccount(
  database: Database,
  account: { id: string; name: string; createdAt: string; balanceMicros: number },
): Promise<void> {
  await database
    .insertInto("accounts")
    .values({
      id: account.id,
      name: account.name,
      status: "active",
      created_at: account.createdAt,
      balance_micros: account.balanceMicros,
    })
    .execute();
  await database
    .insertInto("balance_entries")
    .values({
      id: randomUUID(),
      account_id: account.id,
      kind: "topup",
      amount_micros: account.balanceMicros,
      usage_id: null,
      note: null,
      created_at: account.createdAt,
    })
    .execute();
}

/**
 * Writes one usage row at `createdAt` (ISO 8601 UTC) directly into
 * `usage_records`, as settlement writes it: when `costMicros` (micro-units)
 * is above 0 the row carries that charge (`charged_micros`, migration
 * 0017) and the same amount is taken off the account's `balance_micros`,
 * so "ledger sum = balance" still holds. With `chargeEntry`, writes as
 * before migration 0017 (for a database migrated only that far): no
 * `charged_micros`, the charge a `charge` entry of `-costMicros` in
 * `balance_entries`. Fields not given take {@link usageInput}'s defaults.
 *
 * @returns The usage row's id.
 */
export async function writeChargedUsage(
  database: Database,
  usage: PartialUsage,
  createdAt: string,
  options: { chargeEntry?: boolean } = {},
): Promise<string> {
  const id = randomUUID();
  const input = usageInput(usage);
  const charged = Math.max(0, input.costMicros);
  // Before 0027 the table has no `duration_ms` column, before 0030 no
  // `oauth_grant_id`: a row without a duration or a grant goes in without
  // the column (both are nullable), so databases migrated only part of the
  // way take it too.
  const {
    duration_ms: duration,
    oauth_grant_id: grant,
    ...withoutNewer
  } = usageRow(id, createdAt, input);
  const row = {
    ...withoutNewer,
    ...(duration === null ? {} : { duration_ms: duration }),
    ...(grant === null ? {} : { oauth_grant_id: grant }),
  } as UsageRecordsTable;
  // Before 0017 the table has no `charged_micros` column: the row goes in without it.
  const { charged_micros: _unwritten, ...older } = row;
  await database
    .insertInto("usage_records")
    .values(
      options.chargeEntry === true
        ? (older as UsageRecordsTable)
        : { ...row, charged_micros: charged },
    )
    .execute();
  if (charged === 0) return id;
  if (options.chargeEntry === true) {
    await database
      .insertInto("balance_entries")
      .values({
        id: randomUUID(),
        account_id: input.accountId,
        kind: "charge",
        amount_micros: -charged,
        usage_id: id,
        note: null,
        created_at: createdAt,
      })
      .execute();
  }
  await database
    .updateTable("accounts")
    .set((eb) => ({ balance_micros: eb("balance_micros", "-", input.costMicros) }))
    .where("id", "=", input.accountId)
    .execute();
  return id;
}

/**
 * A value with every string of digits (PostgreSQL's answer for a bigint)
 * turned into a number, so both dialects' rows compare equal.
 */
export function bigintsAsNumbers<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, field) =>
      typeof field === "string" && /^-?\d+$/u.test(field) ? Number(field) : field,
    ),
  );
}

/** The rows of both daily-totals tables, as {@link readDailyTotals} returns them. */
export interface DailyTotals {
  /** `usage_daily_totals` by account, day, persona and endpoint, without `charged_micros`. */
  usage: Record<string, unknown>[];
  /**
   * The ledger's sum per account and day as the totals hold it:
   * `balance_daily_totals`, less the usage totals' `charged_micros` of the
   * day (migration 0019), by account and day; amounts in micro-units.
   */
  ledger: Record<string, unknown>[];
}

/** Orders rows by account and day (code-unit order: the same for both dialects and every collation). */
function byAccountAndDay<Row extends Record<string, unknown>>(rows: Row[]): Row[] {
  const key = (row: Row) => `${String(row.account_id)}\u0000${String(row.day)}`;
  return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Reads `usage_daily_totals` and `balance_daily_totals` whole, in key
 * order, bigints as numbers; the usage rows' charges (0019) are counted in
 * `ledger`, so a database migrated before 0019 and one after compare
 * equal when their sums are. With `nonZero`, leaves out the rows whose
 * counts have gone back to 0 (no requests; a net ledger amount of 0),
 * which a sum over the rows themselves would not produce.
 */
export async function readDailyTotals(
  database: Database,
  options: { nonZero?: boolean } = {},
): Promise<DailyTotals> {
  const usageRows = bigintsAsNumbers(
    (await database
      .selectFrom("usage_daily_totals")
      .selectAll()
      .orderBy("account_id")
      .orderBy("day")
      .orderBy("persona_id")
      .orderBy("endpoint")
      .execute()) as Array<Record<string, unknown>>,
  );
  const entryRows = bigintsAsNumbers(
    (await database
      .selectFrom("balance_daily_totals")
      .selectAll()
      .orderBy("account_id")
      .orderBy("day")
      .execute()) as Array<Record<string, unknown>>,
  );
  const sums = new Map<string, Record<string, unknown>>();
  for (const row of entryRows) sums.set(`${row.account_id}/${row.day}`, { ...row });
  const usage: Record<string, unknown>[] = [];
  for (const { charged_micros: charged, ...row } of usageRows) {
    if (options.nonZero !== true || row.requests !== 0) usage.push(row);
    if (charged === undefined || charged === 0) continue;
    const key = `${row.account_id}/${row.day}`;
    const sum = sums.get(key) ?? { account_id: row.account_id, day: row.day, amount_micros: 0 };
    sums.set(key, { ...sum, amount_micros: Number(sum.amount_micros) - Number(charged) });
  }
  const ledger = byAccountAndDay([...sums.values()]).filter(
    (row) => options.nonZero !== true || row.amount_micros !== 0,
  );
  return { usage, ledger };
}

/**
 * The balance ledger's sum per account and UTC day computed from the rows
 * themselves — `balance_entries` (not carried forward) and the usage rows'
 * charges (`-charged_micros`, migration 0017) — leaving out days that sum
 * to 0, bigints as numbers, in {@link readDailyTotals}' order: what the
 * daily totals must hold (its `ledger` with `nonZero`).
 */
export async function ledgerSumsByDay(database: Database): Promise<Record<string, unknown>[]> {
  const { rows } = await sql<Record<string, unknown>>`select account_id, day,
      sum(amount) as amount_micros from (
      select account_id, substr(created_at, 1, 10) as day, amount_micros as amount
      from balance_entries where kind <> ${CARRIED_FORWARD_KIND}
      union all
      select account_id, substr(created_at, 1, 10), -charged_micros
      from usage_records where charged_micros <> 0
    ) l group by 1, 2 having sum(amount) <> 0`.execute(database);
  return byAccountAndDay(bigintsAsNumbers(rows));
}
