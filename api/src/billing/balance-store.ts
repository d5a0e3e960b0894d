import { sql } from "kysely";
import { deadlineIn } from "../storage/deadline.js";
import type { ReservationHold } from "../storage/ledger.js";
import type { Store } from "../storage/store.js";
import { timeOrderedId } from "../storage/time-ordered-id.js";
import { type UsageInput, usageRow } from "../usage/usage-record.js";
import type { BalanceEntryKind } from "./billing-tables.js";
import { MAX_MICROS } from "./money.js";
import type { ReservationsDialect } from "./reservations-dialect.js";

/** An amount held on an account while one request runs. */
export interface Reservation {
  /** null when nothing had to be held (a free route). */
  id: string | null;
  accountId: string;
  amountMicros: number;
}

/** An account's money, in micro-units of its currency. */
export interface AccountBalance {
  currency: string;
  balanceMicros: number;
  /** Held by requests in flight; spendable = balance − reserved. */
  reservedMicros: number;
}

/** One row of the balance ledger. */
export interface BalanceEntry {
  id: string;
  accountId: string;
  kind: BalanceEntryKind;
  amountMicros: number;
  usageId: string | null;
  note: string | null;
  createdAt: string;
}

/** What {@link BalanceStore.settle} charged. */
export interface Settlement {
  usageId: string;
  chargedMicros: number;
}

/**
 * Balances, reservations and the balance ledger (issue "No overspend under
 * concurrency"). Every change of a balance is one transaction that also
 * appends its ledger entry — a `balance_entries` row, or for a request's
 * charge its usage row (`charged_micros`, migration 0017) — so per account
 * the ledger sums to the balance.
 * Reservations, settlements and releases are the store's ledger operations
 * (storage/ledger.ts): one conditional UPDATE holds an amount only while
 * `balance − reserved ≥ amount`, which PostgreSQL's row lock and SQLite's
 * single writer make atomic across connections and instances, so
 * concurrent requests never hold more than the balance.
 */
export class BalanceStore {
  private readonly database: Store["database"];

  constructor(
    private readonly store: Pick<Store, "database" | "ledger" | "timeoutMs">,
    /** What reservations do the store's dialect's way (chosen once, by `createBilling`). */
    private readonly dialect: ReservationsDialect,
    private readonly options: {
      instanceId: string;
      reservationTtlMs: number;
    },
  ) {
    this.database = store.database;
  }

  /** The name reservations of this process are tagged with. */
  get instanceId(): string {
    return this.options.instanceId;
  }

  /** The reservation a request would hold, made here so its ID is known before the store answers. */
  holdFor(
    accountId: string,
    amountMicros: number,
    requestId: string | null,
    now = new Date(),
  ): ReservationHold {
    return {
      id: timeOrderedId(),
      accountId,
      amountMicros,
      requestId,
      instanceId: this.options.instanceId,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.options.reservationTtlMs).toISOString(),
    };
  }

  /**
   * Adds money to an account and appends a `topup` entry (or `adjustment`
   * for a negative correction, which never takes the balance below what
   * is reserved).
   *
   * @param amountMicros - micro-units; positive for a top-up
   * @returns the new balance, or undefined when no such account exists
   * @throws {RangeError} for a zero, non-integer or too large amount, or a
   *   correction larger than the spendable balance
   */
  async topUp(
    accountId: string,
    amountMicros: number,
    note?: string,
  ): Promise<AccountBalance | undefined> {
    if (
      !Number.isSafeInteger(amountMicros) ||
      amountMicros === 0 ||
      Math.abs(amountMicros) > MAX_MICROS
    ) {
      throw new RangeError("the amount must be a non-zero integer of micro-units");
    }
    const applied = await this.database.transaction().execute(async (transaction) => {
      let update = transaction
        .updateTable("accounts")
        .set({ balance_micros: sql`balance_micros + ${amountMicros}` })
        .where("id", "=", accountId);
      if (amountMicros < 0) {
        update = update.where(sql<boolean>`balance_micros - reserved_micros >= ${-amountMicros}`);
      }
      const result = await update.executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await transaction
        .insertInto("balance_entries")
        .values({
          id: timeOrderedId(),
          account_id: accountId,
          kind: amountMicros > 0 ? "topup" : "adjustment",
          amount_micros: amountMicros,
          usage_id: null,
          note: note ?? null,
          created_at: new Date().toISOString(),
        })
        .execute();
      return true;
    });
    if (!applied) {
      if ((await this.balanceOf(accountId)) === undefined) return undefined;
      throw new RangeError("the correction is larger than the spendable balance");
    }
    return this.balanceOf(accountId);
  }

  /**
   * Undoes a settlement whose request was answered with an error after all
   * — its commit happened, but the answer of the store came too late or was
   * lost with the connection — so nothing is charged for a failed call: the
   * usage row takes the status the client saw and no cost, and an
   * `adjustment` entry gives the charge back, in one transaction.
   *
   * @param status - the status the client was answered with (503)
   * @returns the micro-units given back (0 when no charged row has this ID)
   */
  async reverseSettlement(usageId: string, status: number): Promise<number> {
    return this.database.transaction().execute(async (transaction) => {
      const row = await transaction
        .selectFrom("usage_records")
        .select(["account_id", "cost_micros", "request_id"])
        .where("id", "=", usageId)
        .executeTakeFirst();
      const cost = Number(row?.cost_micros ?? 0);
      if (row === undefined || cost <= 0) return 0;
      await transaction
        .updateTable("usage_records")
        .set({ status, cost_micros: 0 })
        .where("id", "=", usageId)
        .execute();
      await transaction
        .updateTable("accounts")
        .set({ balance_micros: sql`balance_micros + ${cost}` })
        .where("id", "=", row.account_id)
        .execute();
      await transaction
        .insertInto("balance_entries")
        .values({
          id: timeOrderedId(),
          account_id: row.account_id,
          kind: "adjustment",
          amount_micros: cost,
          usage_id: usageId,
          note: `refund: request ${row.request_id ?? usageId} was answered ${status}`,
          created_at: new Date().toISOString(),
        })
        .execute();
      return cost;
    });
  }

  /**
   * Holds an amount on an account before a model call.
   *
   * @param requestId - stored with the reservation, for operators
   * @returns the reservation, or undefined when the spendable balance is
   *   smaller than the amount
   */
  async reserve(
    accountId: string,
    amountMicros: number,
    requestId: string | null,
    now = new Date(),
  ): Promise<Reservation | undefined> {
    const hold = this.holdFor(accountId, Math.max(0, amountMicros), requestId, now);
    const outcome = await this.store.ledger.admit({ hold }, deadlineIn(this.store.timeoutMs));
    if (!outcome.admitted) return undefined;
    return {
      id: hold.amountMicros > 0 ? hold.id : null,
      accountId,
      amountMicros: hold.amountMicros,
    };
  }

  /**
   * Settles a served request in one transaction: ends the reservation,
   * charges the cost (never more than was reserved; when the sweeper has
   * already released the reservation, only if the spendable balance still
   * covers it), appends the usage row, which carries the charge. The usage row
   * is committed before the response is written, so every 200 a client
   * sees has its row.
   */
  async settle(
    reservation: Reservation,
    costMicros: number,
    usage: UsageInput,
  ): Promise<Settlement> {
    const usageId = timeOrderedId();
    const { chargedMicros } = await this.store.ledger.settle(
      {
        reservationId: reservation.id,
        accountId: reservation.accountId,
        heldMicros: reservation.amountMicros,
        costMicros,
        usage: usageRow(usageId, new Date().toISOString(), usage),
      },
      deadlineIn(this.store.timeoutMs),
    );
    return { usageId, chargedMicros };
  }

  /**
   * Releases a reservation without charging (the request failed),
   * writing the failed request's usage row with it when given.
   *
   * @returns false when it was already gone (settled, released or swept)
   */
  async release(reservation: Reservation, failure?: UsageInput): Promise<boolean> {
    if (reservation.id === null) {
      if (failure !== undefined) {
        await this.store.ledger.record(
          usageRow(timeOrderedId(), new Date().toISOString(), failure),
          deadlineIn(this.store.timeoutMs),
        );
      }
      return false;
    }
    return this.store.ledger.release(
      {
        reservationId: reservation.id,
        accountId: reservation.accountId,
        amountMicros: reservation.amountMicros,
        ...(failure === undefined
          ? {}
          : { usage: usageRow(timeOrderedId(), new Date().toISOString(), failure) }),
      },
      deadlineIn(this.store.timeoutMs),
    );
  }

  /**
   * Releases reservations that expired (their request is long gone: the
   * process died, or the call outlived every timeout), or all of one
   * instance's when it starts again after a crash.
   *
   * @returns how many were released
   */
  async sweep(filter: { expiredAt: Date } | { instanceId: string }): Promise<number> {
    let query = this.database
      .selectFrom("balance_reservations")
      .select(["id", "account_id", "amount_micros"]);
    query =
      "expiredAt" in filter
        ? query.where("expires_at", "<=", filter.expiredAt.toISOString())
        : query.where("instance_id", "=", filter.instanceId);
    let released = 0;
    for (;;) {
      const stale = await query.limit(500).execute();
      for (const row of stale) {
        const reservation = {
          id: row.id,
          accountId: row.account_id,
          amountMicros: Number(row.amount_micros),
        };
        if (await this.release(reservation)) released += 1;
      }
      if (stale.length < 500) return released;
    }
  }

  /**
   * After the database lost the holds (PostgreSQL: crash recovery, a
   * promoted replica or a restored backup empty the unlogged
   * `balance_reservations`, migration 0016), sets every account's
   * `reserved_micros` to the sum of the holds that are there; several
   * instances may do it at once. SQLite: nothing (its holds are logged).
   *
   * @returns how many accounts' reserved sums were corrected (0 when nothing was lost)
   * @throws the store's error when a statement fails (the next sweep tries again)
   */
  reconcileLostHolds(): Promise<number> {
    return this.dialect.reconcileLostHolds(this.database);
  }

  /** The balance of an account, or undefined when no such account exists. */
  async balanceOf(accountId: string): Promise<AccountBalance | undefined> {
    const row = await this.database
      .selectFrom("accounts")
      .select(["currency", "balance_micros", "reserved_micros"])
      .where("id", "=", accountId)
      .executeTakeFirst();
    return (
      row && {
        currency: row.currency,
        balanceMicros: Number(row.balance_micros),
        reservedMicros: Number(row.reserved_micros),
      }
    );
  }

  /**
   * The sum of an account's balance ledger in micro-units, which must equal
   * its balance: its `balance_entries` less the charges written on its
   * usage rows (`charged_micros`, migration 0017).
   */
  async ledgerSum(accountId: string): Promise<number> {
    const entries = await this.database
      .selectFrom("balance_entries")
      .select(sql<number>`cast(coalesce(sum(amount_micros), 0) as bigint)`.as("total"))
      .where("account_id", "=", accountId)
      .executeTakeFirstOrThrow();
    const charges = await this.database
      .selectFrom("usage_records")
      .select(sql<number>`cast(coalesce(sum(charged_micros), 0) as bigint)`.as("total"))
      .where("account_id", "=", accountId)
      .where("charged_micros", ">", 0)
      .executeTakeFirstOrThrow();
    return Number(entries.total) - Number(charges.total);
  }

  /**
   * The balance ledger of an account, oldest first: its `balance_entries`
   * and, as entries of kind `charge` (ID and `usageId` the usage row's,
   * amount `-charged_micros`), its usage rows that took from the balance
   * (migration 0017; a charge made before it is a `balance_entries` row).
   */
  async entries(accountId: string): Promise<BalanceEntry[]> {
    const rows = await this.database
      .selectFrom("balance_entries")
      .selectAll()
      .where("account_id", "=", accountId)
      .execute();
    const charges = await this.database
      .selectFrom("usage_records")
      .select(["id", "charged_micros", "created_at"])
      .where("account_id", "=", accountId)
      .where("charged_micros", ">", 0)
      .execute();
    const entries: BalanceEntry[] = [
      ...rows.map((row) => ({
        id: row.id,
        accountId: row.account_id,
        kind: row.kind,
        amountMicros: Number(row.amount_micros),
        usageId: row.usage_id,
        note: row.note,
        createdAt: row.created_at,
      })),
      ...charges.map((row) => ({
        id: row.id,
        accountId,
        kind: "charge" as const,
        amountMicros: -Number(row.charged_micros),
        usageId: row.id,
        note: null,
        createdAt: row.created_at,
      })),
    ];
    return entries.sort(
      (a, b) =>
        (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  }

  /** Reservations currently held, of one account or all. */
  async openReservations(accountId?: string): Promise<number> {
    let query = this.database
      .selectFrom("balance_reservations")
      .select(sql<number>`count(*)`.as("count"));
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.count);
  }
}
