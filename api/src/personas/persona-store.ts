import { randomUUID } from "node:crypto";
import { type ModelRoute, modelRouteSchema } from "./model-route.js";
import type { Persona } from "./persona.js";
import { projection } from "./persona-rows.js";
import type { PersonaFile } from "./persona-traits.js";
import { PersonaVersionStore, type VersionOptions } from "./persona-versions.js";

/**
 * Reads and writes personas and their versions. Every change of
 * a persona's name, traits or route is a new immutable row of
 * `persona_versions`; the `personas` row is the live version's projection,
 * updated in the same transaction that makes a version live, so the request
 * path reads one row and the change feed (a trigger on `personas`, migration
 * 0005) tells every instance at once. Lookups by ID are served from memory
 * when a change feed is given, emptied on every change of a persona.
 *
 * The personas' reads and unversioned settings are persona-records.ts, the
 * versions persona-versions.ts; this file makes and replaces whole personas.
 */
export class PersonaStore extends PersonaVersionStore {
  /**
   * Creates a persona for an account from a validated persona file, as its
   * live version 1.
   *
   * @param options - the note and author of version 1 (`draft` is ignored: a new persona is live)
   * @returns the new persona, with its freshly issued persona ID
   */
  async create(
    accountId: string,
    file: PersonaFile,
    options: Omit<VersionOptions, "draft"> = {},
  ): Promise<Persona> {
    const now = new Date().toISOString();
    const id = randomUUID();
    await this.database.transaction().execute(async (transaction) => {
      await transaction
        .insertInto("personas")
        .values({
          id,
          account_id: accountId,
          personify_access: file.personifyAccess === true ? 1 : 0,
          created_at: now,
          ...projection(file, 1, now),
        })
        .execute();
      await this.insertVersion(transaction, id, 1, file, [], options, now);
    });
    const persona = await this.load(id);
    if (persona === undefined) throw new Error(`persona ${id} vanished after insert`);
    return persona;
  }

  /**
   * Replaces a persona's name, traits, access and route from a persona
   * file: a new version (a draft with `options.draft`) when name, traits or
   * route differ from the live version. /personify access is not part of a
   * version: it changes at once, with a draft too (a draft's promotion
   * would not bring it).
   *
   * @returns the persona as it now serves, or undefined when no persona has this ID
   */
  async update(
    id: string,
    file: PersonaFile,
    options: VersionOptions = {},
  ): Promise<Persona | undefined> {
    const outcome = await this.revise(
      id,
      { name: file.name, traits: file.traits, route: file.route },
      options,
    );
    if (outcome === undefined) return undefined;
    if (file.personifyAccess === undefined) return this.load(id);
    return this.setPersonifyAccess(id, file.personifyAccess);
  }

  /**
   * Replaces a persona's model route (`persona-admin persona update --route`):
   * a new version, live unless `options.draft`.
   *
   * @returns the persona as it now serves, or undefined when no persona has this ID
   * @throws {z.ZodError} for an empty, overlong or repeating route
   */
  async setRoute(
    id: string,
    route: ModelRoute,
    options: VersionOptions = {},
  ): Promise<Persona | undefined> {
    const outcome = await this.revise(id, { route: modelRouteSchema.parse(route) }, options);
    // Read back past the cache, which learns of the change a moment later.
    return outcome === undefined ? undefined : this.load(id);
  }
}
