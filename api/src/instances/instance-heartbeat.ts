import { randomUUID } from "node:crypto";
import os from "node:os";
import type { Logger } from "../logging/logger.js";
import type { Database } from "../storage/database.js";
import { HEARTBEAT_INTERVAL_MS, STALE_AFTER_MS } from "./live-instances.js";

/** Rows of instances dead this long are deleted when an instance starts (milliseconds). */
const PRUNE_AFTER_MS = 60 * 60_000;

/**
 * The name an instance is known by in `persona-admin`'s messages:
 * `PERSONA_INSTANCE_ID` when set (a pod's name), else `hostname:pid`.
 */
export function instanceNameOf(configured: string | undefined): string {
  return configured ?? `${os.hostname()}:${process.pid}`;
}

/** Options of {@link InstanceHeartbeat}. */
export interface HeartbeatOptions {
  /** How the instance is named ({@link instanceNameOf}). */
  name: string;
  /** Names of the upstreams it can serve (`PersonaEngine.servableUpstreams`). */
  upstreams: readonly string[];
  logger?: Logger;
  /** Between two heartbeats, in milliseconds (default {@link HEARTBEAT_INTERVAL_MS}; tests shorten it). */
  intervalMs?: number;
}

/**
 * Publishes, through the store, that this instance runs and which upstreams
 * it can serve (table `instance_upstreams`, migration 0025), so
 * `persona-admin` refuses a route some running instance cannot serve.
 * {@link start} writes the row (and deletes rows of instances dead for an
 * hour), then a heartbeat refreshes it every `intervalMs`; each write is
 * bounded by the store's deadline (`PERSONA_STORAGE_TIMEOUT_MS`), and a
 * heartbeat still under way makes the next one wait for the interval after
 * it. A failed write is logged (once until one succeeds again), never
 * thrown: the instance serves on, and its row, once older than
 * `STALE_AFTER_MS`, is ignored as a dead instance's. {@link stop} deletes
 * the row (graceful shutdown).
 */
export class InstanceHeartbeat {
  /** The row's key: random per start, so processes never share a row whatever their names. */
  readonly id = randomUUID();
  /** When this instance started (ISO 8601 UTC). */
  readonly startedAt = new Date().toISOString();
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly database: Database,
    private readonly options: HeartbeatOptions,
  ) {}

  /** Writes the first heartbeat (a failure is logged) and starts the timer. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.database
      .deleteFrom("instance_upstreams")
      .where("heartbeat_at", "<", new Date(Date.now() - PRUNE_AFTER_MS).toISOString())
      .execute()
      .catch(() => undefined);
    await this.beat();
    this.schedule();
  }

  /** Stops the heartbeat and deletes this instance's row (a failure is logged). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.beating;
    try {
      await this.database.deleteFrom("instance_upstreams").where("id", "=", this.id).execute();
    } catch (error) {
      this.options.logger?.warn(
        { err: error, instance: this.options.name, staleAfterMs: STALE_AFTER_MS },
        "could not delete this instance's upstreams row; it is ignored once its heartbeat is stale",
      );
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.beating = this.beat().finally(() => {
        this.beating = undefined;
        this.schedule();
      });
    }, this.options.intervalMs ?? HEARTBEAT_INTERVAL_MS);
    this.timer.unref();
  }

  /** One heartbeat: the row written with the time and the upstreams. Never throws. */
  private async beat(): Promise<void> {
    const now = new Date().toISOString();
    const upstreams = JSON.stringify([...this.options.upstreams].sort());
    try {
      await this.database
        .insertInto("instance_upstreams")
        .values({
          id: this.id,
          instance: this.options.name,
          started_at: this.startedAt,
          heartbeat_at: now,
          upstreams,
        })
        .onConflict((conflict) =>
          conflict.column("id").doUpdateSet({ heartbeat_at: now, upstreams }),
        )
        .execute();
      if (this.failing) {
        this.failing = false;
        this.options.logger?.info(
          { instance: this.options.name },
          "instance heartbeat written again",
        );
      }
    } catch (error) {
      if (this.failing || this.stopped) return;
      this.failing = true;
      this.options.logger?.warn(
        { err: error, instance: this.options.name },
        "could not write this instance's heartbeat (its upstreams for persona-admin); serving on and retrying",
      );
    }
  }
}
