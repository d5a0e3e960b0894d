import { randomUUID } from "node:crypto";
import type { ChangeFeed } from "../storage/change-feed.js";
import type { Database } from "../storage/database.js";
import { LookupCache } from "../storage/lookup-cache.js";
import type { PersonasTable } from "../storage/schema.js";
import { type ModelRoute, modelRouteSchema, routeOfProvider } from "./model-route.js";
import type { Persona } from "./persona.js";
import { type PersonaFile, personaTraitsSchema } from "./persona-traits.js";

/**
 * The route columns of a write: the whole route as JSON, and its first
 * target in the older `provider` and `model` columns (still NOT NULL).
 */
function routeColumns(route: ModelRoute) {
  const targets = modelRouteSchema.parse(route);
  const first = targets[0];
  if (first === undefined) throw new RangeError("a route lists at least one target");
  return { route: JSON.stringify(targets), provider: first.upstream, model: first.model };
}

/** A row's route: its JSON, or for rows written before routes, `provider:model` alone. */
function routeOf(row: PersonasTable): ModelRoute {
  return row.route === null
    ? routeOfProvider(row.provider, row.model)
    : modelRouteSchema.parse(JSON.parse(row.route));
}

function toPersona(row: PersonasTable): Persona {
  const persona: Persona = {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    traits: personaTraitsSchema.parse(JSON.parse(row.traits)),
    personifyAccess: row.personify_access === 1,
    route: routeOf(row),
    createdAt: row.created_at,
  };
  if (row.self_serve_price_micros !== null) {
    persona.selfServePriceMicros = Number(row.self_serve_price_micros);
  }
  return persona;
}

/**
 * Reads and writes personas. Lookups by ID are served from memory when a
 * change feed is given, emptied on every change of a persona (issue 14).
 */
export class PersonaStore {
  private readonly cache: LookupCache<Persona> | undefined;

  constructor(
    private readonly database: Database,
    changes?: ChangeFeed,
  ) {
    this.cache =
      changes === undefined ? undefined : new LookupCache(changes, { max: 10_000, ttlMs: 60_000 });
  }

  /**
   * Creates a persona for an account from a validated persona file.
   *
   * @returns the new persona, with its freshly issued persona ID
   */
  async create(accountId: string, file: PersonaFile): Promise<Persona> {
    const now = new Date().toISOString();
    const id = randomUUID();
    await this.database
      .insertInto("personas")
      .values({
        id,
        account_id: accountId,
        name: file.name,
        traits: JSON.stringify(file.traits),
        personify_access: file.personifyAccess ? 1 : 0,
        ...routeColumns(file.route),
        created_at: now,
        updated_at: now,
      })
      .execute();
    const persona = await this.find(id);
    if (persona === undefined) throw new Error(`persona ${id} vanished after insert`);
    return persona;
  }

  /**
   * Replaces a persona's name, traits, access and route from a persona file.
   *
   * @returns the updated persona, or undefined when no persona has this ID
   */
  async update(id: string, file: PersonaFile): Promise<Persona | undefined> {
    await this.database
      .updateTable("personas")
      .set({
        name: file.name,
        traits: JSON.stringify(file.traits),
        personify_access: file.personifyAccess ? 1 : 0,
        ...routeColumns(file.route),
        updated_at: new Date().toISOString(),
      })
      .where("id", "=", id)
      .execute();
    return this.find(id);
  }

  /**
   * Replaces a persona's model route (`persona-admin persona update --route`).
   *
   * @returns the updated persona, or undefined when no persona has this ID
   * @throws {z.ZodError} for an empty, overlong or repeating route
   */
  async setRoute(id: string, route: ModelRoute): Promise<Persona | undefined> {
    await this.database
      .updateTable("personas")
      .set({ ...routeColumns(route), updated_at: new Date().toISOString() })
      .where("id", "=", id)
      .execute();
    // Read back past the cache, which learns of the change a moment later.
    return this.load(id);
  }

  /** Grants or withdraws /personify access (spec §4.2). */
  async setPersonifyAccess(id: string, allowed: boolean): Promise<Persona | undefined> {
    await this.database
      .updateTable("personas")
      .set({ personify_access: allowed ? 1 : 0, updated_at: new Date().toISOString() })
      .where("id", "=", id)
      .execute();
    return this.find(id);
  }

  /**
   * Makes a persona self-serve at a price per request in micro-units of USD
   * (spec §5.6), or ends self-serve with null.
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

  private async load(id: string): Promise<Persona | undefined> {
    const row = await this.database
      .selectFrom("personas")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    return row && toPersona(row);
  }

  /** Lists personas, of one account when given, oldest first. */
  async list(accountId?: string): Promise<Persona[]> {
    let query = this.database.selectFrom("personas").selectAll();
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const rows = await query.orderBy("created_at").orderBy("id").execute();
    return rows.map(toPersona);
  }
}
