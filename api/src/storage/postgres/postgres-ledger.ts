import type pg from "pg";
import type { Deadline } from "../deadline.js";
import { GroupCommit } from "../group-commit.js";
import type {
  AdmitInput,
  AdmitOutcome,
  Ledger,
  ReleaseInput,
  SettleInput,
  SettleOutcome,
} from "../ledger.js";
import {
  USAGE_COLUMN_TYPES,
  type UsageColumn,
  type UsageRecordsTable,
  usageColumnsExcept,
} from "../ledger-usage-row.js";
import { WINDOWS, type WindowCounters } from "../rate-limit-buckets.js";
import type { StoreHealth } from "../store-health.js";
import { HOLD_ACCOUNTS_FUNCTION, SETTLE_ACCOUNTS_FUNCTION } from "./ledger-functions.js";
import { queryWithin } from "./postgres-pool.js";

/**
 * The usage row's columns that every write fills: all but the route
 * target that answered (`upstream`, `model`, migration 0006), written by
 * the statements that write served rows (settle, record) while refusals
 * and failures leave it null, and the charge (`charged_micros`, migration
 * 0017), which only a settlement writes.
 */
const FILLED_COLUMNS = usageColumnsExcept("upstream", "model", "charged_micros");

/** The usage columns a single row's statement writes: all but the charge (a settlement's alone). */
const RECORDED_COLUMNS = usageColumnsExcept("charged_micros");

/**
 * The usage columns a settlement batch takes per request besides its
 * reservation: the charged account is the settlement's own `account_id`,
 * and `cost_micros` and `charged_micros` are both the charge the statement
 * works out.
 */
const SETTLED_COLUMNS = usageColumnsExcept("account_id", "cost_micros", "charged_micros");

/** The usage row's values of `columns`, in their order; all null without a row. */
function usageValues(
  row: UsageRecordsTable | undefined,
  columns: readonly UsageColumn[] = FILLED_COLUMNS,
): unknown[] {
  return columns.map((column) => row?.[column] ?? null);
}

/** Typed placeholders of `columns` from `$from` on (`$4::text, $5::text, …`); `[]` makes them arrays (unnest). */
function usagePlaceholders(columns: readonly UsageColumn[], from: number, suffix: "" | "[]" = "") {
  return columns
    .map((column, index) => `$${from + index}::${USAGE_COLUMN_TYPES[column]}${suffix}`)
    .join(", ");
}

/**
 * The admissions of concurrent requests in one statement and one commit
 * (as settlements are). Arrays, one element per
 * request in batch order (`ord`): `$1` bucket (null: no rate limit), `$2`
 * now, `$3`–`$5` limits, `$6`–`$12` the hold (null account: no hold).
 *
 * - The batch's bucket rows are locked first, in key order (`select … for
 *   update`: concurrent batches, of this instance or another, queue behind
 *   each other instead of deadlocking), and the lock returns each row's
 *   newest committed version, so the rate limit is decided on counters no
 *   one else can change before this commit. Then the accounts, in key
 *   order too, by {@link HOLD_ACCOUNTS_FUNCTION} (migration 0022), which
 *   decides each account's holds on the balance its update changes.
 * - Rate limit, per bucket: the windows as they stand at the batch's clock
 *   (the newest `now` of the bucket's requests; a window whose time is over
 *   restarts at it), then requests in batch order while every window has
 *   room: request k passes when `base + k - 1 < limit` (k its position among
 *   the bucket's requests). A request sees the counters after itself
 *   (`base +` the passed requests up to it); a refused one the bucket's
 *   counters after the batch. A bucket new to the database is inserted
 *   without `on conflict`: when another batch created it meanwhile the
 *   statement fails (23505) and the batch is tried again, now locking it.
 * - Balance, per account: the requests that passed, in batch order, are held
 *   while the cumulative hold fits the spendable balance (`balance −
 *   reserved ≥ holds before it + max(its hold, 1)`), as a prefix: once one
 *   does not fit, the later ones of that account are refused too (a smaller
 *   one that would still fit is refused with them; one statement decides
 *   the whole batch, never more than the balance). The function raises
 *   each account's `reserved_micros` once and says how many of its
 *   requests it held.
 * - One update per bucket and per account, one insert of the reservations.
 *   The refusals' usage rows are not written here but after the commit, by
 *   {@link REFUSALS_SQL} when the batch has any: an insert of no rows would
 *   still run the usage table's statement trigger (daily totals) in every
 *   admission.
 *
 * Returns one row per request: `ord`, `passed`, `admitted`, and the
 * counters it saw (null without a bucket).
 */
const ADMIT_BATCH_SQL = (() => {
  const windows = WINDOWS.map(({ name, milliseconds }) => ({ name, milliseconds }));
  const base = windows.flatMap(({ name, milliseconds }) => {
    const expired = `l.bucket is null or c.now >= l.${name}_start + ${milliseconds}`;
    return [
      `case when ${expired} then c.now else l.${name}_start end as ${name}_start`,
      `case when ${expired} then 0 else l.${name}_count end as ${name}_base`,
    ];
  });
  const room = windows.map(({ name }) => `r.${name}_base + r.position - 1 < r.lim_${name}`);
  const starts = windows.map(({ name }) => `${name}_start`);
  const seen = windows.flatMap(({ name }) => [
    `'${name}_start', d.${name}_start`,
    `'${name}_count', d.${name}_base + case when d.passed then d.passed_so_far else d.passed_total end`,
  ]);
  const bucketValues = windows.flatMap(({ name }) => [`${name}_start`, `${name}_base + passed`]);
  const bucketSets = windows.flatMap(({ name }) => [
    `${name}_start = f.${name}_start`,
    `${name}_count = f.${name}_base + f.passed`,
  ]);
  return `with input as (
  select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[],
    $6::text[], $7::text[], $8::bigint[], $9::text[], $10::text[], $11::text[], $12::text[]) with ordinality
  as t(bucket, now, lim_minute, lim_hour, lim_day, hold_id, account_id, amount, instance_id, request_id,
    created_at, expires_at, ord)
), locked_buckets as materialized (
  select * from rate_limit_buckets where bucket in (select bucket from input) order by bucket for update
), clock as (
  select bucket, max(now) as now from input where bucket is not null group by bucket
), base as (
  select c.bucket, l.bucket is null as fresh, ${base.join(", ")}
  from clock c left join locked_buckets l on l.bucket = c.bucket
), ranked as (
  select i.*, b.fresh, ${windows.flatMap(({ name }) => [`b.${name}_start`, `b.${name}_base`]).join(", ")},
    row_number() over (partition by i.bucket order by i.ord) as position
  from input i left join base b on b.bucket = i.bucket
), passing as (
  select r.*, (r.bucket is null or (${room.join(" and ")})) as passed from ranked r
), counted as (
  select p.*,
    count(*) filter (where p.passed) over (partition by p.bucket order by p.ord) as passed_so_far,
    count(*) filter (where p.passed) over (partition by p.bucket) as passed_total,
    count(*) filter (where p.passed and p.account_id is not null)
      over (partition by p.account_id order by p.ord) as account_position
  from passing p
), holding as materialized (
  select h.account_id, h.admitted
  from (select array_agg(account_id order by ord) as ids, array_agg(amount order by ord) as amounts
      from passing where passed and account_id is not null) candidates,
    ${HOLD_ACCOUNTS_FUNCTION}(candidates.ids, candidates.amounts) h
), decided as (
  select c.*, c.passed and c.account_id is not null and c.account_position <= coalesce(h.admitted, 0) as held,
    c.passed and (c.account_id is null or c.account_position <= coalesce(h.admitted, 0)) as admitted
  from counted c left join holding h on h.account_id = c.account_id
), bucket_final as (
  select distinct on (bucket) bucket, fresh, passed_total as passed,
    ${windows.flatMap(({ name }) => [`${name}_start`, `${name}_base`]).join(", ")}
  from decided where bucket is not null and passed_total > 0
), fresh_buckets as (
  insert into rate_limit_buckets (bucket, ${starts.map((start) => `${start}, ${start.replace("_start", "_count")}`).join(", ")})
  select bucket, ${bucketValues.join(", ")} from bucket_final where fresh order by bucket
  returning bucket
), counted_buckets as (
  update rate_limit_buckets b set ${bucketSets.join(", ")}
  from bucket_final f where b.bucket = f.bucket and not f.fresh
  returning b.bucket
), reserved as (
  insert into balance_reservations (id, account_id, amount_micros, instance_id, request_id, created_at, expires_at)
  select hold_id, account_id, amount, instance_id, request_id, created_at, expires_at
  from decided where held and amount > 0
  returning id
)
select d.ord, d.passed, d.admitted,
  case when d.bucket is null then null else json_build_object(${seen.join(", ")}) end as counted
from decided d order by d.ord`;
})();

/**
 * The usage rows of an admission batch's refusals, in one insert (arrays in
 * {@link FILLED_COLUMNS} order), on the durable pool: its commit waits for
 * the WAL flush, so a refusal is on disk before it is answered.
 */
const REFUSALS_SQL = `insert into usage_records (${FILLED_COLUMNS.join(", ")})
select * from unnest(${usagePlaceholders(FILLED_COLUMNS, 1, "[]")})`;

/**
 * The settlements of concurrent requests in one statement (group commit): end the reservations, charge each at most what it held,
 * write the usage rows with their charges (`charged_micros`, migration
 * 0017), as one durable commit.
 * Arrays, one element per settlement. The accounts are updated one at a
 * time in key order ({@link SETTLE_ACCOUNTS_FUNCTION}, migration 0021), the
 * order admissions lock them in, so the two never deadlock; each update
 * locks its row itself (no lock record before it).
 */
const SETTLE_BATCH_SQL = `with input as (
  select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], ${usagePlaceholders(SETTLED_COLUMNS, 5, "[]")})
  as t(reservation_id, account_id, held, cost, ${SETTLED_COLUMNS.join(", ")})
), released as (
  delete from balance_reservations r using input i where r.id = i.reservation_id returning r.id
), charged as (
  select i.*, r.id is not null as was_held,
    case when r.id is not null then least(i.cost, i.held) else 0 end as charge
  from input i left join released r on r.id = i.reservation_id
), totals as (
  select account_id, sum(charge) as charge, sum(case when was_held then held else 0 end) as held
  from charged group by account_id
), updated as materialized (
  select ${SETTLE_ACCOUNTS_FUNCTION}(array_agg(account_id), array_agg(charge::bigint), array_agg(held::bigint)) as accounts
  from totals where charge > 0 or held > 0
), usage_rows as (
  insert into usage_records (${SETTLED_COLUMNS.join(", ")}, account_id, cost_micros, charged_micros)
  select ${SETTLED_COLUMNS.join(", ")}, account_id, charge, charge from charged
  returning id
)
select id as usage_id, was_held, charge, (select accounts from updated) as accounts from charged`;

/**
 * A settlement whose reservation was already released (the sweeper): the
 * cost is charged only if the spendable balance still covers it.
 */
const LATE_CHARGE_SQL = `with charged as (
  update accounts set balance_micros = balance_micros - $2::bigint
  where id = $1::text and balance_micros - reserved_micros >= $2::bigint returning id
), usage_row as (
  update usage_records set cost_micros = $2::bigint, charged_micros = $2::bigint
  where id = $3::text and created_at = $4::text and exists (select 1 from charged) returning id
)
select exists (select 1 from charged) as charged, (select count(*) from usage_row) as written`;

const RELEASE_SQL = `with removed as (
  delete from balance_reservations where id = $1::text returning id
), updated as (
  update accounts set reserved_micros = reserved_micros - $3::bigint
  where id = $2::text and exists (select 1 from removed) returning id
), usage_row as (
  insert into usage_records (${FILLED_COLUMNS.join(", ")})
  select ${usagePlaceholders(FILLED_COLUMNS, 4)} where $4::text is not null and exists (select 1 from removed) returning id
)
select exists (select 1 from removed) as released, (select count(*) from updated) + (select count(*) from usage_row) as written`;

/** A usage row by itself, with the route target that answered (x402 rows; null on failures). */
const RECORD_SQL = `insert into usage_records (${RECORDED_COLUMNS.join(", ")}) values (${usagePlaceholders(RECORDED_COLUMNS, 1)})`;

type CounterRow = Record<
  "minute_start" | "minute_count" | "hour_start" | "hour_count" | "day_start" | "day_count",
  number | string
>;

function countersOf(row: CounterRow): WindowCounters {
  return {
    minute: { start: Number(row.minute_start), count: Number(row.minute_count) },
    hour: { start: Number(row.hour_start), count: Number(row.hour_count) },
    day: { start: Number(row.day_start), count: Number(row.day_count) },
  };
}

/** SQLSTATEs after which a batch is simply tried again (nothing of it was written): deadlock, serialization failure. */
const RETRYABLE = new Set(["40P01", "40001"]);

/** True for an error after which a batch is tried again: {@link RETRYABLE}, or a rate-limit bucket another batch created meanwhile. */
function retryable(error: unknown): boolean {
  const { code, table } = error as { code?: unknown; table?: unknown };
  if (typeof code !== "string") return false;
  return RETRYABLE.has(code) || (code === "23505" && table === "rate_limit_buckets");
}

/**
 * The {@link Ledger} on PostgreSQL: each operation one statement and one
 * round trip; admissions and settlements group-committed (the admissions,
 * or the settlements, of concurrent requests in one statement and one WAL
 * flush, each batch waiting for its earliest deadline).
 */
export class PostgresLedger implements Ledger {
  private readonly admissions: GroupCommit<{ input: AdmitInput; deadline: Deadline }, AdmitOutcome>;
  private readonly settlements: GroupCommit<
    { input: SettleInput; deadline: Deadline },
    SettleOutcome
  >;

  private readonly pool: pg.Pool;
  private readonly relaxed: pg.Pool;

  /**
   * @param pools - `durable` for settlements and usage rows (commits wait for
   *   the WAL flush); `relaxed` for admissions and releases (they do not, so
   *   a batch's row locks are not held through a flush: a server crash may
   *   forget a reservation or a count, never a charge — a settlement's
   *   durable commit flushes its admission too). A batch's refusals' usage
   *   rows are inserted on `durable` after its commit (records are never
   *   lost).
   */
  constructor(
    pools: { durable: pg.Pool; relaxed: pg.Pool },
    private readonly health: StoreHealth,
  ) {
    this.pool = pools.durable;
    this.relaxed = pools.relaxed;
    this.admissions = new GroupCommit((items) => this.admitBatch(items), {
      maxBatch: 200,
      maxInFlight: 2,
    });
    this.settlements = new GroupCommit((items) => this.settleBatch(items), {
      maxBatch: 200,
      maxInFlight: 2,
    });
  }

  admit(input: AdmitInput, deadline: Deadline): Promise<AdmitOutcome> {
    return this.health.observe(this.admissions.submit({ input, deadline }));
  }

  /** One statement for the admissions of a batch ({@link ADMIT_BATCH_SQL}), by the earliest deadline. */
  private async admitBatch(
    items: Array<{ input: AdmitInput; deadline: Deadline }>,
  ): Promise<AdmitOutcome[]> {
    const deadline = Math.min(...items.map((item) => item.deadline));
    const column = <T>(pick: (input: AdmitInput) => T) => items.map((item) => pick(item.input));
    const values = [
      column((input) => input.rateLimit?.bucket ?? null),
      column((input) => input.rateLimit?.now ?? Date.now()),
      column((input) => input.rateLimit?.limits.minute ?? 0),
      column((input) => input.rateLimit?.limits.hour ?? 0),
      column((input) => input.rateLimit?.limits.day ?? 0),
      column((input) => input.hold?.id ?? null),
      column((input) => input.hold?.accountId ?? null),
      column((input) => input.hold?.amountMicros ?? 0),
      column((input) => input.hold?.instanceId ?? null),
      column((input) => input.hold?.requestId ?? null),
      column((input) => input.hold?.createdAt ?? null),
      column((input) => input.hold?.expiresAt ?? null),
    ];
    const rows = await this.withRetry(() =>
      queryWithin<{
        ord: number | string;
        passed: boolean;
        admitted: boolean;
        counted: CounterRow | null;
      }>(this.relaxed, deadline, { name: "persona_admit_batch", text: ADMIT_BATCH_SQL, values }),
    );
    // Refusals' usage rows are records: on disk before any is answered.
    const refusals = rows.flatMap((row) => {
      const usage = items[Number(row.ord) - 1]?.input.refusalUsage;
      if (row.admitted || usage === undefined) return [];
      return [usageValues(row.passed ? usage : { ...usage, payment_method: "none" })];
    });
    if (refusals.length > 0) {
      await queryWithin(this.pool, deadline, {
        name: "persona_record_refusals",
        text: REFUSALS_SQL,
        values: FILLED_COLUMNS.map((_column, index) => refusals.map((values) => values[index])),
      });
    }
    return items.map(({ input }, index) => {
      const row = rows[index];
      if (row === undefined || Number(row.ord) !== index + 1) {
        throw new Error("admission returned no row for a request");
      }
      const counters =
        input.rateLimit === undefined || row.counted === null ? undefined : countersOf(row.counted);
      if (!row.passed && counters !== undefined) {
        return { admitted: false, reason: "rate_limited", counters };
      }
      if (!row.admitted) {
        return counters === undefined
          ? { admitted: false, reason: "insufficient_balance" }
          : { admitted: false, reason: "insufficient_balance", counters };
      }
      return counters === undefined ? { admitted: true } : { admitted: true, counters };
    });
  }

  /** Runs a batch statement, again (up to 3 times) after an error that is {@link retryable}. */
  private async withRetry<Row>(run: () => Promise<Row[]>): Promise<Row[]> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await run();
      } catch (error) {
        if (attempt >= 3 || !retryable(error)) throw error;
      }
    }
  }

  settle(input: SettleInput, deadline: Deadline): Promise<SettleOutcome> {
    return this.health.observe(this.settlements.submit({ input, deadline }));
  }

  private async settleBatch(
    items: Array<{ input: SettleInput; deadline: Deadline }>,
  ): Promise<SettleOutcome[]> {
    const deadline = Math.min(...items.map((item) => item.deadline));
    const column = <T>(pick: (input: SettleInput) => T) => items.map((item) => pick(item.input));
    const values = [
      column((input) => input.reservationId),
      column((input) => input.accountId),
      column((input) => input.heldMicros),
      column((input) => input.costMicros),
      ...SETTLED_COLUMNS.map((name) => column((input) => input.usage[name])),
    ];
    const rows = await this.withRetry(() =>
      queryWithin<{ usage_id: string; was_held: boolean; charge: number | string }>(
        this.pool,
        deadline,
        { name: "persona_settle_batch", text: SETTLE_BATCH_SQL, values },
      ),
    );
    const byUsage = new Map(rows.map((row) => [row.usage_id, row]));
    const outcomes: SettleOutcome[] = [];
    for (const { input } of items) {
      const row = byUsage.get(input.usage.id);
      let charged = Number(row?.charge ?? 0);
      if (row !== undefined && !row.was_held && input.costMicros > 0) {
        const [late] = await queryWithin<{ charged: boolean }>(this.pool, deadline, {
          name: "persona_late_charge",
          text: LATE_CHARGE_SQL,
          values: [input.accountId, input.costMicros, input.usage.id, input.usage.created_at],
        });
        charged = late?.charged === true ? input.costMicros : 0;
      }
      outcomes.push({ chargedMicros: charged });
    }
    return outcomes;
  }

  async release(input: ReleaseInput, deadline: Deadline): Promise<boolean> {
    const [row] = await this.health.observe(
      queryWithin<{ released: boolean }>(this.relaxed, deadline, {
        name: "persona_release",
        text: RELEASE_SQL,
        values: [
          input.reservationId,
          input.accountId,
          input.amountMicros,
          ...usageValues(input.usage),
        ],
      }),
    );
    return row?.released === true;
  }

  async record(usage: UsageRecordsTable, deadline: Deadline): Promise<void> {
    await this.health.observe(
      queryWithin(this.pool, deadline, {
        name: "persona_record_usage",
        text: RECORD_SQL,
        values: usageValues(usage, RECORDED_COLUMNS),
      }),
    );
  }
}
