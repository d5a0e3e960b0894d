import type { ChangeFeed } from "../storage/change-feed.js";
import type { Database } from "../storage/database.js";
import { LookupCache } from "../storage/lookup-cache.js";
import type { Persona } from "./persona.js";
import { toPersona, versionRow } from "./persona-rows.js";

/**
 * Personas as the request path reads them — one `personas` row, the live
 * version's projection, with a running canary's version alongside — and
 * the settings of a persona that are not versioned. Lookups by ID are
 * served from memory when a change feed is given, emptied on every change
 * of a persona. The versions are persona-versions.ts; the whole store is
 * {@link PersonaStore} (persona-store.ts).
 */
export class PersonaRecordStore {
  private readonly cache: LookupCache<Persona> | undefined;

  constructor(
    protected readonly database: Database,
    changes?: ChangeFeed,
  ) {
    this.cache =
      changes === undefined ? undefined : new LookupCache(changes, { max: 10_000, ttlMs: 60_000 });
  }

  /** Grants or withdraws /personify access (docs/API.md §4.2); not versioned. */
  async setPersonifyAccess(id: string, allowed: boolean): Promise<Persona | undefined> {
    await this.database
      .updateTable("personas")
      .set({ personify_access: allowed ? 1 : 0, updated_at: new Date().toISOString() })
      .where("id", "=", id)
      .execute();
    return this.load(id);
  }

  /**
   * Makes a persona self-serve at a price per request in micro-units of USD
   * (docs/API.md §5.6), or ends self-serve with null.
   *
   * @returns the updated persona, or undefined when no persona has this ID
   * @throws {RangeError} for a price that is not a positive whole number
   */
  async setSelfServe(id: string, priceMicros: number | null): Promise<Persona | undefined> {
    if (priceMicros !== null && (!Number.isSafeInteger(priceMicros) || priceMicros < 1)) {
      throw new RangeError("the self-serve price must be a positive whole number of micro-units");
    }
    await this.database
      .updateTable("personas")
      .set({ self_serve_price_micros: priceMicros, updated_at: new Date().toISOString() })
      .where("id", "=", id)
      .execute();
    return this.find(id);
  }

  /** Finds a persona by ID. */
  find(id: string): Promise<Persona | undefined> {
    return this.cache === undefined ? this.load(id) : this.cache.get(id, () => this.load(id));
  }

  /**
   * Reads a persona past the cache: right after a write of this process,
   * before the change feed has emptied the cache.
   */
  async load(id: string): Promise<Persona | undefined> {
    const row = await this.database
      .selectFrom("personas")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    // A running canary's version rides along, so the request path still reads the persona once.
    const canaryRow =
      row.canary_version === null
        ? undefined
        : await versionRow(this.database, id, Number(row.canary_version));
    return toPersona(row, canaryRow);
  }

  /** Lists personas, of one account when given, oldest first. */
  async list(accountId?: string): Promise<Persona[]> {
    let query = this.database.selectFrom("personas").selectAll();
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const rows = await query.orderBy("created_at").orderBy("id").execute();
    return rows.map((row) => toPersona(row));
  }
}
