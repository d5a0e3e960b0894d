import type { Logger } from "../logging/logger.js";
import { StorageUnavailableError } from "./storage-error.js";

/** A failure of a kind already logged this recently is not logged again. */
const REPEAT_LOG_MS = 60_000;

/**
 * What the store last knew of itself: failing since when and why, or
 * well. Fed by every storage call's outcome and the SQLite worker's
 * reports; read by `/readyz`. Logs each incident once at error level with
 * the underlying error and the store's location (a kind that comes and
 * goes at most once a minute), and its end at info.
 */
export class StoreHealth {
  private failure: { error: StorageUnavailableError; since: number; logged: boolean } | undefined;
  /** When each kind of failure was last logged (Unix ms). */
  private readonly lastLogged = new Map<string, number>();
  /** Set while the file at the path is not the file open: nothing clears it but a restart. */
  private fence: StorageUnavailableError | undefined;
  /** Called when a failure ends (see {@link onRecovered}). */
  private readonly recoveryListeners = new Set<() => void>();

  constructor(
    private readonly logger: Logger,
    private readonly location: string,
  ) {}

  /** The failure in force, if any: a fence (replaced file) first, then the latest failure. */
  get current(): StorageUnavailableError | undefined {
    return this.fence ?? this.failure?.error;
  }

  /**
   * Awaits a storage call and records its outcome: a
   * {@link StorageUnavailableError} as a failure, anything else as a sign
   * the store answers.
   */
  async observe<T>(call: Promise<T>): Promise<T> {
    try {
      const value = await call;
      if (this.failure !== undefined) this.recovered();
      return value;
    } catch (error) {
      if (error instanceof StorageUnavailableError && error.kind !== "closed") this.failed(error);
      else if (this.failure !== undefined) this.recovered();
      throw error;
    }
  }

  /** Records a failure; logs it when it starts an incident of a kind not logged in the last minute. */
  failed(error: StorageUnavailableError): void {
    if (this.failure !== undefined && this.failure.error.kind === error.kind) return;
    const now = Date.now();
    const logged = this.lastLogged.get(error.kind);
    // A failure that comes and goes (a full disk whose log is reused after each
    // checkpoint) is one incident to the operator: said once a minute at most.
    const quiet = logged !== undefined && now - logged < REPEAT_LOG_MS;
    if (!quiet) {
      this.lastLogged.set(error.kind, now);
      this.logger.error(
        { kind: error.kind, detail: error.detail, store: this.location },
        `storage failing: ${error.message}`,
      );
    }
    this.failure = { error, since: now, logged: !quiet };
  }

  /** Records a success; logs the end of an incident that was logged. */
  recovered(): void {
    if (this.failure === undefined) return;
    if (this.failure.logged) {
      this.logger.info(
        {
          kind: this.failure.error.kind,
          store: this.location,
          failedForMs: Date.now() - this.failure.since,
        },
        "storage answering again",
      );
    }
    this.failure = undefined;
    for (const listener of this.recoveryListeners) listener();
  }

  /**
   * Calls `listener` each time the store answers again after a failure
   * (e.g. to sweep the reservations that expired while nothing could be
   * written).
   *
   * @returns a function that removes the listener
   */
  onRecovered(listener: () => void): () => void {
    this.recoveryListeners.add(listener);
    return () => this.recoveryListeners.delete(listener);
  }

  /** Fences writes for good (the database file was deleted or replaced under the service). */
  fenced(error: StorageUnavailableError): void {
    if (this.fence !== undefined) return;
    this.fence = error;
    this.logger.error(
      { kind: error.kind, detail: error.detail, store: this.location },
      'the database file was deleted or replaced while in use: writes are refused; restore the file (docs/OPERATIONS.md "Backups") and restart the service',
    );
  }
}
