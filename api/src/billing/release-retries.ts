import type { Logger } from "../logging/logger.js";
import { deadlineIn } from "../storage/deadline.js";
import type { ReleaseInput } from "../storage/ledger.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import type { Store } from "../storage/store.js";

/** A release waiting for the store, with the settlement it follows when there was one. */
interface PendingRelease {
  input: ReleaseInput;
  settlement?: { usageId: string; status: number };
}

/** Milliseconds between attempts to release what the store refused to release. */
const RETRY_INTERVAL_MS = 1_000;

/**
 * Releases that failed because the store was unavailable (a full disk, a
 * lock held elsewhere, a lost connection), tried again every second until
 * they succeed — so a failed request's reservation is given back as soon
 * as the store takes writes again, not only when the sweeper finds it
 * expired. Kept in memory: after a crash, the restart releases
 * the instance's reservations anyway.
 */
export class ReleaseRetries {
  private readonly waiting = new Map<string, PendingRelease>();
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param reverse - undoes a settlement that committed although its request
   *   failed (BalanceStore.reverseSettlement)
   */
  constructor(
    private readonly store: Pick<Store, "ledger" | "timeoutMs">,
    private readonly logger: Logger,
    private readonly reverse: (usageId: string, status: number) => Promise<number>,
  ) {}

  /**
   * Releases now; when the store is unavailable, keeps trying in the background.
   *
   * @param settlement - when the release follows a settlement that failed:
   *   its usage row's ID and the status the client got. If the reservation
   *   turns out to be gone, that settlement committed after all (its answer
   *   was lost) and is reversed.
   * @throws the release's own error when it is not a storage failure
   */
  async release(
    input: ReleaseInput,
    settlement?: { usageId: string; status: number },
  ): Promise<void> {
    const pending: PendingRelease = settlement === undefined ? { input } : { input, settlement };
    try {
      await this.attempt(pending);
    } catch (error) {
      if (!(error instanceof StorageUnavailableError)) throw error;
      this.waiting.set(input.reservationId, pending);
      this.schedule();
    }
  }

  private async attempt({ input, settlement }: PendingRelease): Promise<void> {
    const released = await this.store.ledger.release(input, deadlineIn(this.store.timeoutMs));
    if (!released && settlement !== undefined) {
      const refunded = await this.reverse(settlement.usageId, settlement.status);
      if (refunded > 0) {
        this.logger.warn(
          { usageId: settlement.usageId, refundedMicros: refunded },
          "a settlement committed although its request failed (its answer was lost); reversed it",
        );
      }
    }
  }

  /** How many releases wait for the store. */
  get pending(): number {
    return this.waiting.size;
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.retry();
    }, RETRY_INTERVAL_MS);
    this.timer.unref();
  }

  private async retry(): Promise<void> {
    for (const [id, pending] of this.waiting) {
      try {
        await this.attempt(pending);
        this.waiting.delete(id);
      } catch (error) {
        if (!(error instanceof StorageUnavailableError)) {
          this.waiting.delete(id);
          this.logger.error({ err: error, reservationId: id }, "releasing a reservation failed");
        } else {
          break; // still unavailable: try again later
        }
      }
    }
    if (this.waiting.size > 0) this.schedule();
  }

  /** Stops retrying (the sweeper of the next start releases what is left). */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
