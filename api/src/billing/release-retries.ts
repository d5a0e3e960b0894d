import type { Logger } from "../logging/logger.js";
import { deadlineIn } from "../storage/deadline.js";
import type { ReleaseInput } from "../storage/ledger.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import type { Store } from "../storage/store.js";

/** Milliseconds between attempts to release what the store refused to release. */
const RETRY_INTERVAL_MS = 1_000;

/**
 * Releases that failed because the store was unavailable (a full disk, a
 * lock held elsewhere, a lost connection), tried again every second until
 * they succeed — so a failed request's reservation is given back as soon
 * as the store takes writes again, not only when the sweeper finds it
 * expired (issue 21). Kept in memory: after a crash, the restart releases
 * the instance's reservations anyway.
 */
export class ReleaseRetries {
  private readonly waiting = new Map<string, ReleaseInput>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<Store, "ledger" | "timeoutMs">,
    private readonly logger: Logger,
  ) {}

  /**
   * Releases now; when the store is unavailable, keeps trying in the background.
   *
   * @throws the release's own error when it is not a storage failure
   */
  async release(input: ReleaseInput): Promise<void> {
    try {
      await this.store.ledger.release(input, deadlineIn(this.store.timeoutMs));
    } catch (error) {
      if (!(error instanceof StorageUnavailableError)) throw error;
      this.waiting.set(input.reservationId, { ...input });
      this.schedule();
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
    for (const [id, input] of this.waiting) {
      try {
        await this.store.ledger.release(input, deadlineIn(this.store.timeoutMs));
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
