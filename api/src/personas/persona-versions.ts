import { modelRouteSchema } from "./model-route.js";
import type { Persona, PersonaVersion } from "./persona.js";
import { finishCanary } from "./persona-canary-store.js";
import { contentChanges, type PersonaContent } from "./persona-content.js";
import { lockPersona } from "./persona-lock.js";
import { PersonaRecordStore } from "./persona-records.js";
import {
  contentOf,
  type Executor,
  type PersonasTable,
  projection,
  toVersion,
  versionRow,
} from "./persona-rows.js";
import type { PersonaVersionsTable } from "./persona-tables.js";

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

/** Thrown inside a transaction to roll it back when nothing changed. */
class Unchanged extends Error {
  constructor(readonly live: PersonaVersion) {
    super("unchanged");
  }
}

/**
 * Persona versions: every change of a persona's name, traits or route is a
 * new immutable row of `persona_versions`; the `personas` row is the live
 * version's projection, updated in the same transaction that makes a
 * version live, so the request path reads one row and the change feed (a
 * trigger on `personas`, migration 0005) tells every instance at once.
 * Used through {@link PersonaStore} (persona-store.ts).
 */
export class PersonaVersionStore extends PersonaRecordStore {
  protected async insertVersion(
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

  /**
   * Locks the persona (see {@link lock}) and reads its version `version`,
   * which must not be the live one (promote, rollback).
   *
   * @returns undefined when no persona has this ID
   * @throws {PersonaVersionError} `unknown_version`; `already_live`
   */
  private async lockWithVersion(
    transaction: Executor,
    id: string,
    version: number,
    now: string,
  ): Promise<
    { locked: { row: PersonasTable; latest: number }; row: PersonaVersionsTable } | undefined
  > {
    const locked = await this.lock(transaction, id, now);
    if (locked === undefined) return undefined;
    const row = await versionRow(transaction, id, version);
    if (row === undefined) {
      throw new PersonaVersionError("unknown_version", `persona ${id} has no version ${version}`);
    }
    if (Number(locked.row.live_version) === version) {
      throw new PersonaVersionError("already_live", `version ${version} is already live`);
    }
    return { locked, row };
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
          const liveRow = await versionRow(transaction, id, servedVersion);
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
      const found = await this.lockWithVersion(transaction, id, version, now);
      if (found === undefined) return undefined;
      const { locked, row } = found;
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
      const found = await this.lockWithVersion(transaction, id, version, now);
      if (found === undefined) return undefined;
      const { locked, row: target } = found;
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
    const row = await versionRow(this.database, id, version);
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
}
