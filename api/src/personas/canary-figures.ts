import { sql } from "kysely";
import type { Database } from "../storage/store.js";

/**
 * How one version of a persona did since a moment, from its usage rows
 * (`usage_records`: one row per request that reached an account).
 * Latency is the rows' `duration_ms` (migration 0027: arrival to
 * settlement); rows written before it have none and are left out of it.
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
  /** Median of the rows' `duration_ms` (nearest rank); null when no row has one. */
  latencyP50Ms: number | null;
  /** 95th percentile of the rows' `duration_ms` (nearest rank); null when no row has one. */
  latencyP95Ms: number | null;
}

/**
 * The nearest-rank percentile `p` (0–100] of the version's `duration_ms`
 * among `timed` rows: the value at rank ⌈p/100 × timed⌉ in ascending order,
 * read by the database with an offset (no percentile function is portable).
 */
async function durationPercentile(
  database: Database,
  personaId: string,
  since: string,
  version: number,
  timed: number,
  p: number,
): Promise<number | null> {
  if (timed === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * timed));
  const row = await database
    .selectFrom("usage_records")
    .select("duration_ms")
    .where("persona_id", "=", personaId)
    .where("created_at", ">=", since)
    .where("persona_version", "=", version)
    .where("duration_ms", "is not", null)
    .orderBy("duration_ms")
    .limit(1)
    .offset(rank - 1)
    .executeTakeFirst();
  return row?.duration_ms == null ? null : Number(row.duration_ms);
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
      sql<number>`count(duration_ms)`.as("timed"),
    ])
    .where("persona_id", "=", personaId)
    .where("created_at", ">=", since)
    .where("persona_version", "is not", null)
    .groupBy("persona_version")
    .execute();
  const figures = new Map<number, VersionFigures>();
  for (const row of rows) {
    const version = Number(row.persona_version);
    const timed = Number(row.timed);
    figures.set(
      version,
      figuresOf(version, Number(row.requests), Number(row.errors), Number(row.cost_micros), {
        p50: await durationPercentile(database, personaId, since, version, timed, 50),
        p95: await durationPercentile(database, personaId, since, version, timed, 95),
      }),
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
  latency: { p50: number | null; p95: number | null } = { p50: null, p95: null },
): VersionFigures {
  return {
    version,
    requests,
    errors,
    errorRate: requests === 0 ? 0 : (errors / requests) * 100,
    costMicros,
    costPerRequestMicros: requests === 0 ? 0 : costMicros / requests,
    latencyP50Ms: latency.p50,
    latencyP95Ms: latency.p95,
  };
}
