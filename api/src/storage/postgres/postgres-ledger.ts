import type pg from "pg";
import type { UsageRecordsTable } from "../../billing/billing-tables.js";
import { WINDOWS, type WindowCounters } from "../../rate-limits/rate-limit-windows.js";
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
import type { StoreHealth } from "../store-health.js";
import { queryWithin } from "./postgres-pool.js";

/**
 * The usage row's columns that every write fills. The route target that
 * answered (`upstream`, `model`, migration 0006) is written by the
 * statements that write served rows (settle, record); refusals and
 * failures leave it null.
 */
const USAGE_COLUMNS =
  "id, created_at, account_id, api_key_id, persona_id, endpoint, status, input_tokens, output_tokens, cost_micros, request_id, payment_method, payment_reference, persona_version";

/** The usage row's values in {@link USAGE_COLUMNS} order. */
function usageValues(row: UsageRecordsTable | undefined): unknown[] {
  if (row === undefined) return Array.from({ length: 14 }, () => null);
  return [
    row.id,
    row.created_at,
    row.account_id,
    row.api_key_id,
    row.persona_id,
    row.endpoint,
    row.status,
    row.input_tokens,
    row.output_tokens,
    row.cost_micros,
    row.request_id,
    row.payment_method,
    row.payment_reference,
    row.persona_version,
  ];
}

/** Types of the usage row's columns, in {@link USAGE_COLUMNS} order, for typed placeholders. */
const USAGE_TYPES = [
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "int",
  "int",
  "int",
  "bigint",
  "text",
  "text",
  "text",
  "int",
];

const usagePlaceholders = (from: number) =>
  USAGE_TYPES.map((type, index) => `$${from + index}::${type}`).join(", ");

/**
 * Admission in one statement, one round trip (issue 14): count the
 * request in its bucket when every window has room (an upsert: a fresh
 * bucket starts at 1), hold the reservation when the spendable balance
 * covers it, write the refusal's usage row otherwise. `$1` bucket (null:
 * no rate limit), `$2` now, `$3`–`$5` limits, `$6`–`$12` the hold (`$7`
 * null: no hold), `$13`–`$26` the refusal's usage row (null id: none).
 * PostgreSQL re-checks the upsert's and the UPDATE's conditions on the
 * newest row version after waiting for a concurrent writer's row lock, so
 * no window and no balance is overrun across instances.
 */
const ADMIT_SQL = (() => {
  const expired = (name: string, milliseconds: number) => `$2 >= b.${name}_start + ${milliseconds}`;
  const sets = WINDOWS.flatMap(({ name, milliseconds }) => [
    `${name}_start = case when ${expired(name, milliseconds)} then $2 else b.${name}_start end`,
    `${name}_count = case when ${expired(name, milliseconds)} then 1 else b.${name}_count + 1 end`,
  ]);
  const limits = WINDOWS.map(
    ({ name, milliseconds }, index) =>
      `(case when ${expired(name, milliseconds)} then 0 else b.${name}_count end) < $${3 + index}`,
  );
  const counters = "minute_start, minute_count, hour_start, hour_count, day_start, day_count";
  return `with counted as (
  insert into rate_limit_buckets as b (bucket, ${counters})
  select $1::text, $2::bigint, 1, $2::bigint, 1, $2::bigint, 1 where $1::text is not null
  on conflict (bucket) do update set ${sets.join(", ")}
  where ${limits.join(" and ")}
  returning ${counters}
), passed as (
  select 1 as passed where $1::text is null or exists (select 1 from counted)
), held as (
  update accounts set reserved_micros = reserved_micros + $8::bigint
  where id = $7::text and balance_micros - reserved_micros >= greatest($8::bigint, 1)
    and exists (select 1 from passed)
  returning id
), reserved as (
  insert into balance_reservations (id, account_id, amount_micros, instance_id, request_id, created_at, expires_at)
  select $6::text, $7::text, $8::bigint, $9::text, $10::text, $11::text, $12::text from held where $8::bigint > 0
  returning id
), admitted as (
  select exists (select 1 from passed) and ($7::text is null or exists (select 1 from held)) as admitted
), refused as (
  insert into usage_records (${USAGE_COLUMNS})
  select $13::text, $14::text, $15::text, $16::text, $17::text, $18::text, $19::int, $20::int, $21::int,
    $22::bigint, $23::text, case when exists (select 1 from passed) then $24::text else 'none' end, $25::text, $26::int
  from admitted where $13::text is not null and not admitted
  returning id
)
select (select admitted from admitted) as admitted,
  exists (select 1 from passed) as passed,
  (select row_to_json(c) from counted c) as counted,
  (select count(*) from reserved) + (select count(*) from refused) as written`;
})();

/**
 * The settlements of concurrent requests in one statement (group commit,
 * issue 14): end the reservations, charge each at most what it held,
 * write the usage rows and `charge` entries, as one durable commit.
 * Arrays, one element per settlement.
 */
const SETTLE_BATCH_SQL = `with input as (
  select * from unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[],
    $8::text[], $9::text[], $10::text[], $11::int[], $12::int[], $13::int[], $14::text[], $15::text[], $16::text[],
    $17::text[], $18::text[], $19::int[])
  as t(reservation_id, account_id, held, cost, entry_id, usage_id, created_at, api_key_id, persona_id, endpoint,
    status, input_tokens, output_tokens, request_id, payment_method, payment_reference, upstream, model,
    persona_version)
), released as (
  delete from balance_reservations r using input i where r.id = i.reservation_id returning r.id
), charged as (
  select i.*, r.id is not null as was_held,
    case when r.id is not null then least(i.cost, i.held) else 0 end as charge
  from input i left join released r on r.id = i.reservation_id
), totals as (
  select account_id, sum(charge) as charge, sum(case when was_held then held else 0 end) as held
  from charged group by account_id
), updated as (
  update accounts a set balance_micros = a.balance_micros - t.charge, reserved_micros = a.reserved_micros - t.held
  from totals t where a.id = t.account_id and (t.charge > 0 or t.held > 0)
  returning a.id
), usage_rows as (
  insert into usage_records (${USAGE_COLUMNS}, upstream, model)
  select usage_id, created_at, account_id, api_key_id, persona_id, endpoint, status, input_tokens, output_tokens,
    charge, request_id, payment_method, payment_reference, persona_version, upstream, model from charged
  returning id
), entries as (
  insert into balance_entries (id, account_id, kind, amount_micros, usage_id, note, created_at)
  select entry_id, account_id, 'charge', -charge, usage_id, null, created_at from charged where charge > 0
  returning id
)
select usage_id, was_held, charge, (select count(*) from updated) as accounts from charged`;

/**
 * A settlement whose reservation was already released (the sweeper): the
 * cost is charged only if the spendable balance still covers it.
 */
const LATE_CHARGE_SQL = `with charged as (
  update accounts set balance_micros = balance_micros - $2::bigint
  where id = $1::text and balance_micros - reserved_micros >= $2::bigint returning id
), usage_row as (
  update usage_records set cost_micros = $2::bigint where id = $3::text and exists (select 1 from charged) returning id
), entry as (
  insert into balance_entries (id, account_id, kind, amount_micros, usage_id, note, created_at)
  select $4::text, $1::text, 'charge', -$2::bigint, $3::text, null, $5::text from charged returning id
)
select exists (select 1 from charged) as charged, (select count(*) from usage_row) + (select count(*) from entry) as written`;

const RELEASE_SQL = `with removed as (
  delete from balance_reservations where id = $1::text returning id
), updated as (
  update accounts set reserved_micros = reserved_micros - $3::bigint
  where id = $2::text and exists (select 1 from removed) returning id
), usage_row as (
  insert into usage_records (${USAGE_COLUMNS})
  select ${usagePlaceholders(4)} where $4::text is not null and exists (select 1 from removed) returning id
)
select exists (select 1 from removed) as released, (select count(*) from updated) + (select count(*) from usage_row) as written`;

/** A usage row by itself, with the route target that answered (x402 rows; null on failures). */
const RECORD_SQL = `insert into usage_records (${USAGE_COLUMNS}, upstream, model) values (${usagePlaceholders(1)}, $15::text, $16::text)`;

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

/** SQLSTATEs after which a batch is simply tried again: deadlock, serialization failure. */
const RETRYABLE = new Set(["40P01", "40001"]);

/**
 * The {@link Ledger} on PostgreSQL: each operation one statement and one
 * round trip; settlements group-committed (several requests' settlements
 * in one statement and one WAL flush).
 */
export class PostgresLedger implements Ledger {
  private readonly settlements: GroupCommit<
    { input: SettleInput; deadline: Deadline },
    SettleOutcome
  >;

  private readonly pool: pg.Pool;
  private readonly relaxed: pg.Pool;

  /**
   * @param pools - `durable` for settlements and usage rows (commits wait for
   *   the WAL flush); `relaxed` for admissions and releases (they do not:
   *   a server crash may forget a reservation or a count, never a charge)
   */
  constructor(
    pools: { durable: pg.Pool; relaxed: pg.Pool },
    private readonly health: StoreHealth,
  ) {
    this.pool = pools.durable;
    this.relaxed = pools.relaxed;
    this.settlements = new GroupCommit((items) => this.settleBatch(items), {
      maxBatch: 200,
      maxInFlight: 2,
    });
  }

  async admit(input: AdmitInput, deadline: Deadline): Promise<AdmitOutcome> {
    const { rateLimit, hold } = input;
    const values = [
      rateLimit?.bucket ?? null,
      rateLimit?.now ?? Date.now(),
      rateLimit?.limits.minute ?? 0,
      rateLimit?.limits.hour ?? 0,
      rateLimit?.limits.day ?? 0,
      hold?.id ?? null,
      hold?.accountId ?? null,
      hold?.amountMicros ?? 0,
      hold?.instanceId ?? null,
      hold?.requestId ?? null,
      hold?.createdAt ?? null,
      hold?.expiresAt ?? null,
      ...usageValues(input.refusalUsage),
    ];
    const [row] = await this.health.observe(
      queryWithin<{
        admitted: boolean;
        passed: boolean;
        counted: CounterRow | null;
      }>(this.pool, deadline, { name: "persona_admit", text: ADMIT_SQL, values }),
    );
    if (row === undefined) throw new Error("admission returned no row");
    const counters =
      rateLimit === undefined || row.counted === null ? undefined : countersOf(row.counted);
    if (!row.passed && rateLimit !== undefined) {
      // The statement's snapshot predates the writers it waited for: read the counters as they are now.
      const [current] = await this.health.observe(
        queryWithin<CounterRow>(this.relaxed, deadline, {
          name: "persona_bucket_counters",
          text: "select minute_start, minute_count, hour_start, hour_count, day_start, day_count from rate_limit_buckets where bucket = $1",
          values: [rateLimit.bucket],
        }),
      );
      const latest = current === undefined ? counters : countersOf(current);
      if (latest === undefined) throw new Error("a refused admission found no counters");
      return { admitted: false, reason: "rate_limited", counters: latest };
    }
    if (!row.admitted) {
      return counters === undefined
        ? { admitted: false, reason: "insufficient_balance" }
        : { admitted: false, reason: "insufficient_balance", counters };
    }
    return counters === undefined ? { admitted: true } : { admitted: true, counters };
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
      column((input) => input.entryId),
      column((input) => input.usage.id),
      column((input) => input.usage.created_at),
      column((input) => input.usage.api_key_id),
      column((input) => input.usage.persona_id),
      column((input) => input.usage.endpoint),
      column((input) => input.usage.status),
      column((input) => input.usage.input_tokens),
      column((input) => input.usage.output_tokens),
      column((input) => input.usage.request_id),
      column((input) => input.usage.payment_method),
      column((input) => input.usage.payment_reference),
      column((input) => input.usage.upstream),
      column((input) => input.usage.model),
      column((input) => input.usage.persona_version),
    ];
    let rows: Array<{ usage_id: string; was_held: boolean; charge: number | string }> = [];
    for (let attempt = 0; ; attempt += 1) {
      try {
        rows = await queryWithin(this.pool, deadline, {
          name: "persona_settle_batch",
          text: SETTLE_BATCH_SQL,
          values,
        });
        break;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (attempt >= 3 || typeof code !== "string" || !RETRYABLE.has(code)) throw error;
      }
    }
    const byUsage = new Map(rows.map((row) => [row.usage_id, row]));
    const outcomes: SettleOutcome[] = [];
    for (const { input } of items) {
      const row = byUsage.get(input.usage.id);
      let charged = Number(row?.charge ?? 0);
      if (row !== undefined && !row.was_held && input.costMicros > 0) {
        const [late] = await queryWithin<{ charged: boolean }>(this.pool, deadline, {
          name: "persona_late_charge",
          text: LATE_CHARGE_SQL,
          values: [
            input.accountId,
            input.costMicros,
            input.usage.id,
            input.entryId,
            input.usage.created_at,
          ],
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
        values: [...usageValues(usage), usage.upstream, usage.model],
      }),
    );
  }
}
