import { LRUCache } from "lru-cache";
import type { ChangeFeed } from "./change-feed.js";

/**
 * An in-process cache of rows the request path looks up on every request
 * (keys by hash, personas by ID), emptied whenever the change
 * feed says the underlying rows may have changed, and bypassed while the
 * feed cannot see changes. Misses are never cached (a key created a moment
 * ago must work at once); a lookup that started before a change is not
 * stored after it. Concurrent misses of one key share one load.
 */
export class LookupCache<Value> {
  private readonly entries: LRUCache<string, { value: Value }>;
  private readonly loading = new Map<string, Promise<Value | undefined>>();
  private epoch = 0;

  /**
   * @param options - `max` entries kept; `ttlMs` a safety limit on any entry's age
   */
  constructor(
    private readonly changes: ChangeFeed,
    options: { max: number; ttlMs: number },
  ) {
    this.entries = new LRUCache({ max: options.max, ttl: options.ttlMs });
    changes.onChange(() => {
      this.epoch += 1;
      this.entries.clear();
      this.loading.clear();
    });
  }

  /** The cached value of `key`, or what `load` finds (cached when found and still current). */
  get(key: string, load: () => Promise<Value | undefined>): Promise<Value | undefined> {
    if (!this.changes.tracking) return load();
    const hit = this.entries.get(key);
    if (hit !== undefined) return Promise.resolve(hit.value);
    const pending = this.loading.get(key);
    if (pending !== undefined) return pending;
    const epoch = this.epoch;
    const loaded = load().then(
      (value) => {
        if (this.loading.get(key) === loaded) this.loading.delete(key);
        if (value !== undefined && epoch === this.epoch) this.entries.set(key, { value });
        return value;
      },
      (error: unknown) => {
        if (this.loading.get(key) === loaded) this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, loaded);
    return loaded;
  }
}
