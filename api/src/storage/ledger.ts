import type { Deadline } from "./deadline.js";
import type { UsageRecordsTable } from "./ledger-usage-row.js";
import type { RateLimits, WindowCounters } from "./rate-limit-buckets.js";

/**
 * The request path's writes, each one
 * transaction, implemented once per dialect: by the SQLite worker thread
 * (storage/sqlite/sqlite-ledger.ts, group-committed with the writes around
 * it) and by PostgreSQL statements (storage/postgres/postgres-ledger.ts,
 * one round trip each; settlements of concurrent requests share one).
 * Every method takes a {@link Deadline} and rejects with
 * `StorageUnavailableError` when the store cannot answer by then; a call
 * that failed left nothing behind.
 */
export interface Ledger {
  /**
   * Counts a request in its rate-limit bucket and holds its reservation, in
   * one transaction: a request refused by the rate limit consumes no window
   * and holds nothing; one refused for its balance has been counted (it
   * passed the rate limit) and holds nothing. A refusal's `refusalUsage`
   * row (status 429) is on disk before the call resolves: on SQLite in the
   * same transaction; on PostgreSQL by one insert of the batch's refusals
   * right after its commit (only when it has any).
   */
  admit(input: AdmitInput, deadline: Deadline): Promise<AdmitOutcome>;
  /**
   * Ends a reservation and charges the cost in one transaction with the
   * usage row, which carries the charge (`charged_micros`, migration 0017):
   * never more than was held; when the
   * reservation was already released (swept), only if the spendable
   * balance still covers it. Durable (on disk) when it resolves.
   */
  settle(input: SettleInput, deadline: Deadline): Promise<SettleOutcome>;
  /**
   * Ends a reservation without charging, writing the failed request's
   * usage row with it (only when the reservation was still there: when it
   * is gone, the request was settled after all or swept).
   *
   * @returns false when the reservation was already gone
   */
  release(input: ReleaseInput, deadline: Deadline): Promise<boolean>;
  /** Appends a usage row by itself (x402 payments, refusals outside `admit`). */
  record(usage: UsageRecordsTable, deadline: Deadline): Promise<void>;
}

/** A rate-limit bucket to count a request in (docs/API.md §8.1: minute, hour and day windows). */
export interface RateLimitCheck {
  /** What is limited, e.g. an API key's ID or `playground:<accountId>`. */
  bucket: string;
  limits: RateLimits;
  /** Unix milliseconds (the instance's clock). */
  now: number;
}

/** An amount to hold on an account while a model call runs. */
export interface ReservationHold {
  /** Made by the caller (UUID), so a hold whose answer was lost can still be released. */
  id: string;
  accountId: string;
  /** Micro-units; 0 holds nothing but still requires a spendable balance above 0. */
  amountMicros: number;
  requestId: string | null;
  /** The instance holding it, so a restart can release what a crash left. */
  instanceId: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601: after this the sweeper releases it. */
  expiresAt: string;
}

/** What {@link Ledger.admit} is asked to do; either part may be absent. */
export interface AdmitInput {
  rateLimit?: RateLimitCheck;
  hold?: ReservationHold;
  /**
   * The usage row written when the request is refused (its cost is 0,
   * status 429); a refusal by the rate limit records `payment_method`
   * `none` (no payment was looked at).
   */
  refusalUsage?: UsageRecordsTable;
}

/** The answer of {@link Ledger.admit}; `counters` when a rate limit was checked. */
export type AdmitOutcome =
  | { admitted: true; counters?: WindowCounters }
  | { admitted: false; reason: "rate_limited"; counters: WindowCounters }
  | { admitted: false; reason: "insufficient_balance"; counters?: WindowCounters };

/** What {@link Ledger.settle} is asked to do. */
export interface SettleInput {
  /** null when nothing was held (a free route). */
  reservationId: string | null;
  accountId: string;
  /** What the reservation held, in micro-units. */
  heldMicros: number;
  /** The real cost in micro-units. */
  costMicros: number;
  /**
   * The usage row; its `cost_micros` and `charged_micros` are replaced by
   * what was charged (the row is the charge of the balance ledger,
   * migration 0017).
   */
  usage: UsageRecordsTable;
}

/** What {@link Ledger.settle} charged. */
export interface SettleOutcome {
  chargedMicros: number;
}

/** What {@link Ledger.release} is asked to do. */
export interface ReleaseInput {
  reservationId: string;
  accountId: string;
  amountMicros: number;
  /** The failed request's usage row (no cost), written with the release. */
  usage?: UsageRecordsTable;
}

/** A {@link Ledger} operation, as the `operation` label of `persona_storage_write_duration_seconds`. */
export type LedgerOperation = "admit" | "settle" | "release" | "record";

/**
 * Told of every ledger call once it ends: which operation, how long the
 * caller waited for it in seconds (queued behind a group commit, written,
 * committed and, for durable writes, flushed to disk), and whether it
 * resolved (`ok`) or rejected (`error`: the store did not answer in time,
 * or failed).
 */
export type LedgerObserver = (
  operation: LedgerOperation,
  seconds: number,
  outcome: "ok" | "error",
) => void;

/**
 * The same ledger, each call timed for `observe` (where a
 * request's time goes — the storage write's share of it, on either
 * dialect). Results and errors pass through unchanged.
 */
export function observeLedger(ledger: Ledger, observe: LedgerObserver): Ledger {
  const timed = async <T>(operation: LedgerOperation, call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const result = await call();
      observe(operation, (performance.now() - started) / 1000, "ok");
      return result;
    } catch (error) {
      observe(operation, (performance.now() - started) / 1000, "error");
      throw error;
    }
  };
  return {
    admit: (input, deadline) => timed("admit", () => ledger.admit(input, deadline)),
    settle: (input, deadline) => timed("settle", () => ledger.settle(input, deadline)),
    release: (input, deadline) => timed("release", () => ledger.release(input, deadline)),
    record: (usage, deadline) => timed("record", () => ledger.record(usage, deadline)),
  };
}
