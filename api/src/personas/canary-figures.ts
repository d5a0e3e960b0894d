import { sql } from "kysely";
import type { Database } from "../storage/store.js";

/**
 * How one version of a persona did since a moment, from its usage rows
 * (`usage_records`: one row per request that reached an account).
 * Latency is not among them: usage rows carry no duration.
 */
export interface VersionFigures {
  version: number;
  /** Usage rows of the version. */
  requests: number;
  /** Rows answered 5xx: upstream failures (502, 504) and the service's own (500, 503). */
  errors: number;
  /** `errors / requests` in percent (0–100); 0 without requests. */
  errorRate: number;
  /** What the requests cost, in micro-units of USD (`cost_micros`). */
  costMicros: number;
  /** `costMicros / requests`, in micro-units; 0 without requests. */
  costPerRequestMicros: number;
}

/**
 * Figures per version of a persona's usage rows written at or after `since`
 * (ISO 8601 UTC), by version number; rows without a version (written
 * before versions) are left out.
 */
export async function versionFigures(
  database: Database,
  personaId: string,
  since: string,
): Promise<Map<number, VersionFigures>> {
  const rows = await database
    .selectFrom("usage_records")
    .select([
      "persona_version",
      sql<number>`count(*)`.as("requests"),
      sql<number>`sum(case when status >= 500 then 1 else 0 end)`.as("errors"),
      sql<number>`cast(sum(cost_micros) as bigint)`.as("cost_micros"),
    ])
    .where("persona_id", "=", personaId)
    .where("created_at", ">=", since)
    .where("persona_version", "is not", null)
    .groupBy("persona_version")
    .execute();
  const figures = new Map<number, VersionFigures>();
  for (const row of rows) {
    const version = Number(row.persona_version);
    figures.set(
      version,
      figuresOf(version, Number(row.requests), Number(row.errors), Number(row.cost_micros)),
    );
  }
  return figures;
}

/** The figures of a version from its counts (all zero for a version without rows). */
export function figuresOf(
  version: number,
  requests = 0,
  errors = 0,
  costMicros = 0,
): VersionFigures {
  return {
    version,
    requests,
    errors,
    errorRate: requests === 0 ? 0 : (errors / requests) * 100,
    costMicros,
    costPerRequestMicros: requests === 0 ? 0 : costMicros / requests,
  };
}
