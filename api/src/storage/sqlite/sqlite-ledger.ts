import type { Statement } from "better-sqlite3";
import type {
  AdmitInput,
  AdmitOutcome,
  RateLimitCheck,
  ReleaseInput,
  SettleInput,
  SettleOutcome,
} from "../ledger.js";
import { USAGE_COLUMNS, type UsageRecordsTable } from "../ledger-usage-row.js";
import {
  type RateLimitWindowColumns,
  WINDOWS,
  type WindowCounters,
} from "../rate-limit-buckets.js";

/** Prepares (or reuses) a statement of the worker's connection. */
export type Prepare = (sql: string) => Statement;

/** Columns of a rate-limit bucket row. */
type BucketRow = RateLimitWindowColumns;

/**
 * One conditional UPDATE checks every window of a bucket and counts all of
 * them or none (docs/API.md §8.1; the windows restart when their time is over).
 * Named parameters: `$bucket`, `$now`, `$minute`, `$hour`, `$day` (limits).
 */
const CONSUME_SQL = (() => {
  const expired = (name: string, milliseconds: number) => `$now >= ${name}_start + ${milliseconds}`;
  const sets: string[] = [];
  const conditions: string[] = [];
  for (const { name, milliseconds } of WINDOWS) {
    sets.push(
      `${name}_start = case when ${expired(name, milliseconds)} then $now else ${name}_start end`,
      `${name}_count = case when ${expired(name, milliseconds)} then 1 else ${name}_count + 1 end`,
    );
    conditions.push(
      `(case when ${expired(name, milliseconds)} then 0 else ${name}_count end) < $${name}`,
    );
  }
  return `update rate_limit_buckets set ${sets.join(", ")} where bucket = $bucket and ${conditions.join(" and ")} returning minute_start, minute_count, hour_start, hour_count, day_start, day_count`;
})();

/** Every column of the usage row: refusals, failures and settlements alike. */
const INSERT_USAGE_SQL = `insert into usage_records (${USAGE_COLUMNS.join(", ")}) values (${USAGE_COLUMNS.map(() => "?").join(", ")})`;

function usageValues(row: UsageRecordsTable): unknown[] {
  return USAGE_COLUMNS.map((column) => row[column]);
}

function countersOf(row: BucketRow): WindowCounters {
  return {
    minute: { start: Number(row.minute_start), count: Number(row.minute_count) },
    hour: { start: Number(row.hour_start), count: Number(row.hour_count) },
    day: { start: Number(row.day_start), count: Number(row.day_count) },
  };
}

/**
 * The {@link Ledger} operations on SQLite, run synchronously inside the
 * storage worker's write transaction (each under its own savepoint, see
 * sqlite-worker.ts), with statements prepared once.
 */
export class SqliteLedger {
  constructor(private readonly prepare: Prepare) {}

  private consume(check: RateLimitCheck): { allowed: boolean; counters: WindowCounters } {
    const parameters = {
      bucket: check.bucket,
      now: check.now,
      minute: check.limits.minute,
      hour: check.limits.hour,
      day: check.limits.day,
    };
    const consume = this.prepare(CONSUME_SQL);
    let row = consume.get(parameters) as BucketRow | undefined;
    if (row === undefined) {
      const created = this.prepare(
        "insert into rate_limit_buckets (bucket, minute_start, minute_count, hour_start, hour_count, day_start, day_count) values (?, ?, 0, ?, 0, ?, 0) on conflict (bucket) do nothing",
      ).run(check.bucket, check.now, check.now, check.now);
      if (created.changes > 0) row = consume.get(parameters) as BucketRow | undefined;
    }
    if (row !== undefined) return { allowed: true, counters: countersOf(row) };
    const current = this.prepare(
      "select minute_start, minute_count, hour_start, hour_count, day_start, day_count from rate_limit_buckets where bucket = ?",
    ).get(check.bucket) as BucketRow;
    return { allowed: false, counters: countersOf(current) };
  }

  /** See {@link Ledger.admit}. */
  admit(input: AdmitInput): AdmitOutcome {
    let counters: WindowCounters | undefined;
    if (input.rateLimit !== undefined) {
      const decision = this.consume(input.rateLimit);
      counters = decision.counters;
      if (!decision.allowed) {
        // Refused before any payment was looked at: the row says so.
        this.writeRefusal(input, "none");
        return { admitted: false, reason: "rate_limited", counters };
      }
    }
    const hold = input.hold;
    if (hold !== undefined) {
      const held = this.prepare(
        "update accounts set reserved_micros = reserved_micros + ? where id = ? and balance_micros - reserved_micros >= ?",
      ).run(hold.amountMicros, hold.accountId, Math.max(hold.amountMicros, 1));
      if (held.changes === 0) {
        this.writeRefusal(input, input.refusalUsage?.payment_method ?? "balance");
        return counters === undefined
          ? { admitted: false, reason: "insufficient_balance" }
          : { admitted: false, reason: "insufficient_balance", counters };
      }
      if (hold.amountMicros > 0) {
        this.prepare(
          "insert into balance_reservations (id, account_id, amount_micros, instance_id, request_id, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?)",
        ).run(
          hold.id,
          hold.accountId,
          hold.amountMicros,
          hold.instanceId,
          hold.requestId,
          hold.createdAt,
          hold.expiresAt,
        );
      }
    }
    return counters === undefined ? { admitted: true } : { admitted: true, counters };
  }

  private writeRefusal(
    input: AdmitInput,
    paymentMethod: UsageRecordsTable["payment_method"],
  ): void {
    if (input.refusalUsage !== undefined) {
      this.prepare(INSERT_USAGE_SQL).run(
        usageValues({ ...input.refusalUsage, payment_method: paymentMethod }),
      );
    }
  }

  /** See {@link Ledger.settle}. */
  settle(input: SettleInput): SettleOutcome {
    let held = 0;
    if (input.reservationId !== null) {
      const removed = this.prepare("delete from balance_reservations where id = ?").run(
        input.reservationId,
      );
      if (removed.changes > 0) held = input.heldMicros;
    }
    let charge = held > 0 ? Math.min(input.costMicros, held) : input.costMicros;
    if (charge > 0 || held > 0) {
      const updated =
        held > 0
          ? this.prepare(
              "update accounts set balance_micros = balance_micros - ?, reserved_micros = reserved_micros - ? where id = ?",
            ).run(charge, held, input.accountId)
          : this.prepare(
              "update accounts set balance_micros = balance_micros - ? where id = ? and balance_micros - reserved_micros >= ?",
            ).run(charge, input.accountId, charge);
      if (updated.changes === 0) charge = 0;
    }
    this.prepare(INSERT_USAGE_SQL).run(
      usageValues({ ...input.usage, cost_micros: charge, charged_micros: charge }),
    );
    return { chargedMicros: charge };
  }

  /** See {@link Ledger.release}. */
  release(input: ReleaseInput): boolean {
    const removed = this.prepare("delete from balance_reservations where id = ?").run(
      input.reservationId,
    );
    if (removed.changes > 0) {
      this.prepare("update accounts set reserved_micros = reserved_micros - ? where id = ?").run(
        input.amountMicros,
        input.accountId,
      );
    }
    // Without the reservation the request was settled after all (its answer lost) or
    // swept: its row is not written twice.
    if (removed.changes > 0 && input.usage !== undefined) {
      this.prepare(INSERT_USAGE_SQL).run(usageValues(input.usage));
    }
    return removed.changes > 0;
  }

  /** See {@link Ledger.record}. */
  record(usage: UsageRecordsTable): void {
    this.prepare(INSERT_USAGE_SQL).run(usageValues(usage));
  }
}
