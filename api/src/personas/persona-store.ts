import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import {
  type PersonaSampling,
  parseSamplingSettings,
} from "../online-evaluation/sampling-settings.js";
import type { ChangeFeed } from "../storage/change-feed.js";
import type { Database } from "../storage/database.js";
import { LookupCache } from "../storage/lookup-cache.js";
import type { PersonasTable as PersonasColumns, PersonaVersionsTable } from "../storage/schema.js";
import { type ModelRoute, modelRouteSchema, routeOfProvider } from "./model-route.js";
import type { Persona, PersonaCanary, PersonaVersion } from "./persona.js";
import { DEFAULT_MIN_SAMPLES, finishCanary } from "./persona-canary-store.js";
import { lockPersona } from "./persona-lock.js";
import { type PersonaFile, type PersonaTraits, personaTraitsSchema } from "./persona-traits.js";

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
/** A `personas` row as read. */
type PersonasTable = Selectable<PersonasColumns>;

function routeOf(row: PersonasTable): ModelRoute {
  return row.route === null
    ? routeOfProvider(row.provider, row.model)
    : modelRouteSchema.parse(JSON.parse(row.route));
}

/**
 * The running canary of a `personas` row, given its version's row (read
 * alongside: {@link PersonaStore.load}); undefined when none runs.
 */
function canaryOf(
  row: PersonasTable,
  canaryRow: PersonaVersionsTable | undefined,
): PersonaCanary | undefined {
  if (row.canary_version === null || row.canary_started_at === null || canaryRow === undefined) {
    return undefined;
  }
  return {
    version: Number(row.canary_version),
    percent: Number(row.canary_percent),
    startedAt: row.canary_started_at,
    maxErrorRateIncrease: Number(row.canary_max_error_increase),
    minRequests: Number(row.canary_min_requests),
    minOnlineScore: row.canary_min_score === null ? null : Number(row.canary_min_score),
    minJudgeScore: row.canary_min_judge_score === null ? null : Number(row.canary_min_judge_score),
    minSamples:
      row.canary_min_samples === null ? DEFAULT_MIN_SAMPLES : Number(row.canary_min_samples),
    content: contentOf(canaryRow),
  };
}

/** A `personas` row's online evaluation, or undefined when it samples nothing. */
function samplingOf(row: PersonasTable): PersonaSampling | undefined {
  const percent = row.sample_percent === null ? 0 : Number(row.sample_percent);
  if (percent <= 0) return undefined;
  const settings = parseSamplingSettings(row.sample_settings);
  return settings === undefined
    ? undefined
    : { percent, settings, canaryStartedAt: row.canary_started_at ?? "" };
}

function toPersona(row: PersonasTable, canaryRow?: PersonaVersionsTable): Persona {
  const persona: Persona = {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    traits: personaTraitsSchema.parse(JSON.parse(row.traits)),
    personifyAccess: row.personify_access === 1,
    route: routeOf(row),
    version: Number(row.live_version),
    createdAt: row.created_at,
  };
  if (row.self_serve_price_micros !== null) {
    persona.selfServePriceMicros = Number(row.self_serve_price_micros);
  }
  const canary = canaryOf(row, canaryRow);
  if (canary !== undefined) persona.canary = canary;
  const sampling = samplingOf(row);
  if (sampling !== undefined) persona.sampling = sampling;
  return persona;
}

/** What a version holds: the parts of a persona that shape its answers. */
export interface PersonaContent {
  name: string;
  traits: PersonaTraits;
  route: ModelRoute;
}

/** How a version is made (`persona-admin persona update … --note … --release-note … --draft`). */
export interface VersionOptions {
  /** The operator's note, kept with the version: internal, never shown to the customer. */
  note?: string | null;
  /**
   * What the customer is told about the version, shown on the signed-in
   * pages beside the persona's name and version (migration 0023).
   */
  releaseNote?: string | null;
  /** Who makes it (persona-admin: the operator's login name). */
  createdBy?: string | null;
  /** A draft serves no traffic until {@link PersonaStore.promote}. */
  draft?: boolean;
  /**
   * What `--force` overrode to make this version (`persona-admin`'s route
   * check: `forced: web-2:812 (started …) lacked claude`), appended to the
   * note so `persona history` shows it.
   */
  forced?: string;
}

/** The note of a version: the operator's, then what was forced, `; ` apart. */
function noteWith(note: string | null | undefined, forced: string | undefined): string | null {
  if (forced === undefined) return note ?? null;
  return note === null || note === undefined || note === "" ? forced : `${note}; ${forced}`;
}

/** Which version of a persona {@link PersonaStore.findVersion} reads. */
export type VersionSelector = number | "draft" | "live";

/** Why a version operation was refused; `code` names the case. */
export class PersonaVersionError extends Error {
  constructor(
    readonly code: "unknown_version" | "not_draft" | "already_live",
    message: string,
  ) {
    super(message);
    this.name = "PersonaVersionError";
  }
}

/** What {@link PersonaStore.revise} did: made a version, or found nothing changed. */
export type ReviseOutcome =
  | { kind: "created"; version: PersonaVersion }
  | { kind: "unchanged"; live: PersonaVersion };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Paths of the leaves that differ (arrays compare whole), e.g. `traits.personality.confidence`. */
function changedPaths(before: unknown, after: unknown, path: string): string[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => changedPaths(before[key], after[key], `${path}.${key}`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [path];
}

/**
 * What differs between two versions' contents: `name`, `route`, and each
 * changed traits path (`traits.communicationStyle.verbosity`).
 */
export function contentChanges(before: PersonaContent, after: PersonaContent): string[] {
  const changes: string[] = [];
  if (before.name !== after.name) changes.push("name");
  changes.push(...changedPaths(before.traits, after.traits, "traits"));
  if (JSON.stringify(before.route) !== JSON.stringify(after.route)) changes.push("route");
  return changes;
}

function contentOf(row: PersonasTable | PersonaVersionsTable): PersonaContent {
  return {
    name: row.name,
    traits: personaTraitsSchema.parse(JSON.parse(row.traits)),
    route:
      "live_version" in row
        ? routeOf(row)
        : modelRouteSchema.parse(JSON.parse((row as PersonaVersionsTable).route)),
  };
}

function toVersion(row: PersonaVersionsTable, liveVersion: number): PersonaVersion {
  const version = Number(row.version);
  return {
    personaId: row.persona_id,
    version,
    status: version === liveVersion ? "live" : row.promoted_at === null ? "draft" : "retired",
    ...contentOf(row),
    note: row.note,
    releaseNote: row.release_note,
    changes: JSON.parse(row.changes) as string[],
    createdAt: row.created_at,
    createdBy: row.created_by,
    promotedAt: row.promoted_at,
  };
}

/** The `personas` columns that project a version's content. */
function projection(content: PersonaContent, version: number, now: string) {
  return {
    name: content.name,
    traits: JSON.stringify(content.traits),
    ...routeColumns(content.route),
    live_version: version,
    updated_at: now,
  };
}

/** A transaction (or the database) of the store. */
type Executor = Pick<Database, "selectFrom" | "insertInto" | "updateTable">;

/** Thrown inside a transaction to roll it back when nothing changed. */
class Unchanged extends Error {
  constructor(readonly live: PersonaVersion) {
    super("unchanged");
  }
}

/**
 * Reads and writes personas and their versions. Every change of
 * a persona's name, traits or route is a new immutable row of
 * `persona_versions`; the `personas` row is the live version's projection,
 * updated in the same transaction that makes a version live, so the request
 * path reads one row and the change feed (a trigger on `personas`, migration
 * 0005) tells every instance at once. Lookups by ID are served from memory
 * when a change feed is given, emptied on every change of a persona.
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

  private async insertVersion(
    executor: Executor,
    personaId: string,
    version: number,
    content: PersonaContent,
    changes: string[],
    options: VersionOptions,
    now: string,
  ): Promise<PersonaVersionsTable> {
    const row: PersonaVersionsTable = {
      persona_id: personaId,
      version,
      name: content.name,
      traits: JSON.stringify(content.traits),
      route: JSON.stringify(modelRouteSchema.parse(content.route)),
      note: noteWith(options.note, options.forced),
      release_note: options.releaseNote ?? null,
      changes: JSON.stringify(changes),
      created_at: now,
      created_by: options.createdBy ?? null,
      promoted_at: options.draft === true ? null : now,
    };
    await executor.insertInto("persona_versions").values(row).execute();
    return row;
  }

  /**
   * Locks the persona's row for the rest of the transaction (PostgreSQL:
   * the row lock; SQLite: the writer runs one transaction at a time) and
   * reads it with its highest version number.
   */
  private async lock(
    transaction: Executor,
    id: string,
    now: string,
  ): Promise<{ row: PersonasTable; latest: number } | undefined> {
    const row = await lockPersona(transaction, id, now);
    if (row === undefined) return undefined;
    const { latest } = await transaction
      .selectFrom("persona_versions")
      .select((select) => select.fn.max("version").as("latest"))
      .where("persona_id", "=", id)
      .executeTakeFirstOrThrow();
    return { row, latest: Number(latest ?? 0) };
  }

  private async versionRow(
    executor: Executor,
    id: string,
    version: number,
  ): Promise<PersonaVersionsTable | undefined> {
    return executor
      .selectFrom("persona_versions")
      .selectAll()
      .where("persona_id", "=", id)
      .where("version", "=", version)
      .executeTakeFirst();
  }

  /**
   * Makes a new version of a persona from the live version with `change`
   * applied: live at once, or a draft with `options.draft`. Nothing is
   * written when the result equals the live version and `options.releaseNote`
   * is absent or the live version's own.
   *
   * @returns the new version, `unchanged` with the live version, or
   *   undefined when no persona has this ID
   * @throws {z.ZodError} for an empty, overlong or repeating route
   */
  async revise(
    id: string,
    change: Partial<PersonaContent>,
    options: VersionOptions = {},
  ): Promise<ReviseOutcome | undefined> {
    const now = new Date().toISOString();
    try {
      return await this.database.transaction().execute(async (transaction) => {
        const locked = await this.lock(transaction, id, now);
        if (locked === undefined) return undefined;
        const live = contentOf(locked.row);
        const next: PersonaContent = { ...live, ...change };
        const changes = contentChanges(live, next);
        const servedVersion = Number(locked.row.live_version);
        // A new release note is a change customers see: it makes a version too.
        const releaseNote = options.releaseNote ?? null;
        if (changes.length === 0) {
          const liveRow = await this.versionRow(transaction, id, servedVersion);
          if (liveRow === undefined) throw new Error(`persona ${id} has no live version row`);
          if (releaseNote === null || releaseNote === liveRow.release_note) {
            throw new Unchanged(toVersion(liveRow, servedVersion));
          }
          changes.push("releaseNote");
        }
        const version = locked.latest + 1;
        const row = await this.insertVersion(transaction, id, version, next, changes, options, now);
        let liveVersion = servedVersion;
        if (options.draft !== true) {
          await transaction
            .updateTable("personas")
            .set(projection(next, version, now))
            .where("id", "=", id)
            .execute();
          liveVersion = version;
        }
        return { kind: "created", version: toVersion(row, liveVersion) } as const;
      });
    } catch (error) {
      if (error instanceof Unchanged) return { kind: "unchanged", live: error.live };
      throw error;
    }
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

  /**
   * Makes a draft live (`persona-admin persona promote ID N`): the
   * `personas` row takes its content in the same transaction, and every
   * instance serves it once the change feed tells it (well within 1 s).
   * Promoting a running canary's version finishes the canary in the same
   * transaction (recorded in its events with `operator`).
   *
   * @param options - `forced`: what `--force` overrode, appended to the version's note
   * @returns the promoted version, or undefined when no persona has this ID
   * @throws {PersonaVersionError} `unknown_version`; `already_live`; `not_draft`
   *   for a version that served before (roll back to it instead)
   */
  async promote(
    id: string,
    version: number,
    operator: string | null = null,
    options: Pick<VersionOptions, "forced"> = {},
  ): Promise<PersonaVersion | undefined> {
    const now = new Date().toISOString();
    return this.database.transaction().execute(async (transaction) => {
      const locked = await this.lock(transaction, id, now);
      if (locked === undefined) return undefined;
      const row = await this.versionRow(transaction, id, version);
      if (row === undefined) {
        throw new PersonaVersionError("unknown_version", `persona ${id} has no version ${version}`);
      }
      if (Number(locked.row.live_version) === version) {
        throw new PersonaVersionError("already_live", `version ${version} is already live`);
      }
      if (row.promoted_at !== null) {
        throw new PersonaVersionError(
          "not_draft",
          `version ${version} is not a draft (it served before): roll back to it instead`,
        );
      }
      await transaction
        .updateTable("personas")
        .set(projection(contentOf(row), version, now))
        .where("id", "=", id)
        .execute();
      // Promoting the canary's version finishes the canary, in this transaction.
      if (Number(locked.row.canary_version) === version) {
        await finishCanary(transaction, locked.row, now, operator);
      }
      // A draft's note is the one thing besides its promotion that may change: what was forced.
      const note = noteWith(row.note, options.forced);
      await transaction
        .updateTable("persona_versions")
        .set({ promoted_at: now, note })
        .where("persona_id", "=", id)
        .where("version", "=", version)
        .execute();
      return toVersion({ ...row, promoted_at: now, note }, version);
    });
  }

  /**
   * Rolls a persona back to version `version` (`persona-admin persona
   * rollback ID N`): a new version with its content, live at once (the
   * note says so unless one is given; the release note is version N's
   * unless one is given, null included). Rolling back to a running
   * canary's version finishes the canary in the same transaction.
   *
   * @returns the new version, or undefined when no persona has this ID
   * @throws {PersonaVersionError} `unknown_version`; `already_live` when N is the live version
   */
  async rollback(
    id: string,
    version: number,
    options: Omit<VersionOptions, "draft"> = {},
  ): Promise<PersonaVersion | undefined> {
    const now = new Date().toISOString();
    return this.database.transaction().execute(async (transaction) => {
      const locked = await this.lock(transaction, id, now);
      if (locked === undefined) return undefined;
      const target = await this.versionRow(transaction, id, version);
      if (target === undefined) {
        throw new PersonaVersionError("unknown_version", `persona ${id} has no version ${version}`);
      }
      if (Number(locked.row.live_version) === version) {
        throw new PersonaVersionError("already_live", `version ${version} is already live`);
      }
      const content = contentOf(target);
      const next = locked.latest + 1;
      // Rolling back to the canary's version makes its content live: the canary is finished.
      if (Number(locked.row.canary_version) === version) {
        await finishCanary(transaction, locked.row, now, options.createdBy ?? null);
      }
      const row = await this.insertVersion(
        transaction,
        id,
        next,
        content,
        contentChanges(contentOf(locked.row), content),
        {
          ...options,
          note: options.note ?? `rollback to version ${version}`,
          // The customer gets version N's behaviour back, so by default its words too.
          releaseNote:
            options.releaseNote === undefined ? target.release_note : options.releaseNote,
          draft: false,
        },
        now,
      );
      await transaction
        .updateTable("personas")
        .set(projection(content, next, now))
        .where("id", "=", id)
        .execute();
      return toVersion(row, next);
    });
  }

  /** Every version of a persona, oldest first; undefined when no persona has this ID. */
  async history(id: string): Promise<PersonaVersion[] | undefined> {
    const persona = await this.load(id);
    if (persona === undefined) return undefined;
    const rows = await this.database
      .selectFrom("persona_versions")
      .selectAll()
      .where("persona_id", "=", id)
      .orderBy("version")
      .execute();
    return rows.map((row) => toVersion(row, persona.version));
  }

  /** One version of a persona as `history` lists it; undefined when there is none. */
  async version(id: string, version: number): Promise<PersonaVersion | undefined> {
    const persona = await this.load(id);
    if (persona === undefined) return undefined;
    const row = await this.versionRow(this.database, id, version);
    return row && toVersion(row, persona.version);
  }

  /**
   * The persona as it answers at a version, for running it outside the
   * request path (the evaluation, `persona diff`): `"live"` is
   * {@link find}; a number is that version; `"draft"` the newest draft.
   * Owner, /personify access and self-serve price are the persona's
   * current ones (they are not versioned); `version` names the version.
   *
   * @returns undefined when the persona, the version or a draft does not exist
   */
  async findVersion(id: string, at: VersionSelector): Promise<Persona | undefined> {
    if (at === "live") return this.find(id);
    const persona = await this.load(id);
    if (persona === undefined) return undefined;
    let query = this.database
      .selectFrom("persona_versions")
      .selectAll()
      .where("persona_id", "=", id);
    query =
      at === "draft"
        ? query.where("promoted_at", "is", null).orderBy("version", "desc").limit(1)
        : query.where("version", "=", at);
    const row = await query.executeTakeFirst();
    if (row === undefined) return undefined;
    return { ...persona, ...contentOf(row), version: Number(row.version) };
  }

  /**
   * An account's personas with their live versions (the signed-in pages:
   * which version answers, since when, and its release note), oldest first.
   */
  async listWithLiveVersion(
    accountId: string,
  ): Promise<Array<{ persona: Persona; live: PersonaVersion }>> {
    const personas = await this.list(accountId);
    if (personas.length === 0) return [];
    const rows = await this.database
      .selectFrom("persona_versions")
      .innerJoin("personas", (join) =>
        join
          .onRef("personas.id", "=", "persona_versions.persona_id")
          .onRef("personas.live_version", "=", "persona_versions.version"),
      )
      .selectAll("persona_versions")
      .where("personas.account_id", "=", accountId)
      .execute();
    const byPersona = new Map(rows.map((row) => [row.persona_id, row]));
    return personas.flatMap((persona) => {
      const row = byPersona.get(persona.id);
      return row === undefined ? [] : [{ persona, live: toVersion(row, persona.version) }];
    });
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
        : await this.versionRow(this.database, id, Number(row.canary_version));
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
