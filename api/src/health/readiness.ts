import { z } from "zod";
import type { RateLimiter } from "../rate-limits/rate-limiter.js";
import { deadlineIn } from "../storage/deadline.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import type { Store } from "../storage/store.js";

/** One dependency's state in a readiness answer; `detail` says what failed, without secrets. */
const readinessCheckSchema = z.object({
  status: z.enum(["ok", "failing", "not_configured"]),
  detail: z.string().optional(),
});

/** The body of `GET /readyz` (documented in the OpenAPI document as `Readiness`). */
export const readinessSchema = z.object({
  status: z.enum(["ready", "not_ready"]),
  checks: z.object({ database: readinessCheckSchema, redis: readinessCheckSchema }),
});

/** One dependency's state in a readiness answer. */
export type ReadinessCheck = z.infer<typeof readinessCheckSchema>;

/** The body of `GET /readyz`. */
export type Readiness = z.infer<typeof readinessSchema>;

/** A result is reused this long, so load-balancer probes from many sources cost one probe. */
const REUSE_MS = 500;

function describe(error: unknown): string {
  if (error instanceof StorageUnavailableError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  // A missing table means the schema is not there (an empty or recreated database).
  if (/no such table|does not exist/iu.test(message)) {
    return "the database has no schema (migrations not applied): restart the service to apply them";
  }
  return "the database answered with an error";
}

async function check(run: () => Promise<void>, timeoutMs: number): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      run(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new StorageUnavailableError("timeout", "readiness probe timed out")),
          timeoutMs,
        );
      }),
    ]);
    return { status: "ok" };
  } catch (error) {
    return { status: "failing", detail: describe(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness: the
 * database answers a read of the schema and takes a write (a probe row)
 * within the deadline, the file is the one at the configured path, and
 * Redis, when configured, answers a PING. Never calls model upstreams.
 * Concurrent and back-to-back probes share one result for 500 ms.
 */
export class ReadinessProbe {
  private last: { at: number; result: Readiness } | undefined;
  private running: Promise<Readiness> | undefined;

  constructor(
    private readonly store: Pick<Store, "probe">,
    private readonly rateLimiter: RateLimiter,
    private readonly redisConfigured: boolean,
    private readonly instanceId: string,
    private readonly timeoutMs: number,
  ) {}

  /** Probes (or reuses a fresh result); never rejects, never waits past the deadline. */
  check(): Promise<Readiness> {
    if (this.last !== undefined && Date.now() - this.last.at < REUSE_MS) {
      return Promise.resolve(this.last.result);
    }
    this.running ??= this.probe().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async probe(): Promise<Readiness> {
    const [database, redis] = await Promise.all([
      check(() => this.store.probe(this.instanceId, deadlineIn(this.timeoutMs)), this.timeoutMs),
      this.redisConfigured
        ? check(() => this.rateLimiter.probe(), this.timeoutMs)
        : Promise.resolve<ReadinessCheck>({ status: "not_configured" }),
    ]);
    const ready = database.status === "ok" && redis.status !== "failing";
    const result: Readiness = {
      status: ready ? "ready" : "not_ready",
      checks: { database, redis },
    };
    this.last = { at: Date.now(), result };
    return result;
  }
}
