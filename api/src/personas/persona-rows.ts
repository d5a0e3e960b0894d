/**
 * The rows of `personas` and `persona_versions`, read into personas and
 * persona versions and written from them.
 */
import type { Selectable } from "kysely";
import {
  type PersonaSampling,
  parseSamplingSettings,
} from "../online-evaluation/sampling-settings.js";
import type { Database } from "../storage/database.js";
import { type ModelRoute, modelRouteSchema, routeOfProvider } from "./model-route.js";
import type { Persona, PersonaCanary, PersonaVersion } from "./persona.js";
import { canaryTermsOf } from "./persona-canary-store.js";
import type { PersonaContent } from "./persona-content.js";
import type { PersonasTable as PersonasColumns, PersonaVersionsTable } from "./persona-tables.js";
import { personaTraitsSchema } from "./persona-traits.js";

/** A `personas` row as read. */
export type PersonasTable = Selectable<PersonasColumns>;

/** A transaction (or the database) of the store. */
export type Executor = Pick<Database, "selectFrom" | "insertInto" | "updateTable">;

/**
 * The route columns of a write: the whole route as JSON, and its first
 * target in the older `provider` and `model` columns (still NOT NULL).
 */
export function routeColumns(route: ModelRoute) {
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
    ...canaryTermsOf({
      ...row,
      canary_version: row.canary_version,
      canary_started_at: row.canary_started_at,
    }),
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

export function toPersona(row: PersonasTable, canaryRow?: PersonaVersionsTable): Persona {
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

/** The content of a `personas` row (its live version) or of a `persona_versions` row. */
export function contentOf(row: PersonasTable | PersonaVersionsTable): PersonaContent {
  return {
    name: row.name,
    traits: personaTraitsSchema.parse(JSON.parse(row.traits)),
    route:
      "live_version" in row
        ? routeOf(row)
        : modelRouteSchema.parse(JSON.parse((row as PersonaVersionsTable).route)),
  };
}

/** A `persona_versions` row as a persona version, its status judged against the live version number. */
export function toVersion(row: PersonaVersionsTable, liveVersion: number): PersonaVersion {
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
export function projection(content: PersonaContent, version: number, now: string) {
  return {
    name: content.name,
    traits: JSON.stringify(content.traits),
    ...routeColumns(content.route),
    live_version: version,
    updated_at: now,
  };
}

/** One `persona_versions` row; undefined when the persona has no such version. */
export async function versionRow(
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
