import type { RouteTarget } from "../personas/model-route.js";
import type { Database } from "../storage/database.js";

/** How often a running instance writes its heartbeat (milliseconds). */
export const HEARTBEAT_INTERVAL_MS = 5_000;

/**
 * A row whose heartbeat is older than this is a dead instance's (killed,
 * crashed, cut off from the database) and is ignored: three intervals, so
 * one slow or failed write does not hide a live instance. Instances' and
 * `persona-admin`'s clocks are compared, so they must agree to a second or
 * so (as they must for the rate-limit windows).
 */
export const STALE_AFTER_MS = 3 * HEARTBEAT_INTERVAL_MS;

/** A running instance and the upstreams it can serve, as it published them. */
export interface LiveInstance {
  /** The row's key, random per start. */
  id: string;
  /** How the operator knows it: `PERSONA_INSTANCE_ID`, else `hostname:pid`. */
  instance: string;
  /** When it started (ISO 8601 UTC). */
  startedAt: string;
  /** Its latest heartbeat (ISO 8601 UTC). */
  heartbeatAt: string;
  /** Names of the upstreams it can serve, sorted. */
  upstreams: string[];
}

/** A row's upstream list; a list that cannot be read counts as empty (it serves nothing we know of). */
function upstreamsOf(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((name) => typeof name === "string") : [];
  } catch {
    return [];
  }
}

/**
 * The instances whose heartbeat is at most {@link STALE_AFTER_MS} old,
 * by name and start time.
 *
 * @param now - Unix milliseconds
 * @throws {StorageUnavailableError} when the store cannot answer in time
 */
export async function liveInstances(
  database: Database,
  now: number = Date.now(),
): Promise<LiveInstance[]> {
  const rows = await database
    .selectFrom("instance_upstreams")
    .selectAll()
    .where("heartbeat_at", ">=", new Date(now - STALE_AFTER_MS).toISOString())
    .orderBy("instance")
    .orderBy("started_at")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    instance: row.instance,
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
    upstreams: upstreamsOf(row.upstreams),
  }));
}

/** An instance that lacks upstreams a route names. */
export interface InstanceGap {
  instance: LiveInstance;
  /** The route's upstreams it cannot serve, in the route's order. */
  missing: string[];
}

/**
 * The instances that cannot serve every upstream of a route (a fallback
 * included: a route is meant to be walked whole on every instance).
 */
export function instancesLacking(
  route: readonly RouteTarget[],
  instances: readonly LiveInstance[],
): InstanceGap[] {
  const named = [...new Set(route.map((target) => target.upstream))];
  return instances.flatMap((instance) => {
    const missing = named.filter((upstream) => !instance.upstreams.includes(upstream));
    return missing.length === 0 ? [] : [{ instance, missing }];
  });
}

/** An instance as messages name it: `web-1:4242 (started 2025-11-28T10:00:00.000Z)`. */
export function describeInstance(instance: Pick<LiveInstance, "instance" | "startedAt">): string {
  return `${instance.instance} (started ${instance.startedAt})`;
}
