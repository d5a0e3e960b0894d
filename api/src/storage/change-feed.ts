/**
 * Tells in-process caches that rows they hold may have changed (keys, accounts, personas and limit overrides served from memory,
 * invalidated when they change). Database triggers count every such
 * write, whoever makes it — this instance, another instance, the operator
 * CLI — and the store turns that into `changed()`: PostgreSQL by
 * `LISTEN/NOTIFY`, SQLite by the writer worker's generation counter and
 * `PRAGMA data_version`. While the feed cannot see changes (`tracking`
 * false: the listening connection is down), caches must not serve.
 */
export class ChangeFeed {
  private readonly listeners = new Set<() => void>();
  private tracked = false;

  /** Whether changes are seen now; when false, caches read through. */
  get tracking(): boolean {
    return this.tracked;
  }

  /**
   * Calls `listener` whenever rows may have changed or tracking started or stopped.
   *
   * @returns a function that removes the listener
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rows changed: every cache empties itself. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Starts or stops tracking; caches empty themselves either way. */
  setTracking(tracking: boolean): void {
    if (tracking === this.tracked) return;
    this.tracked = tracking;
    this.changed();
  }
}
