import pg from "pg";
import type { Logger } from "../../logging/logger.js";
import type { ChangeFeed } from "../change-feed.js";
import type { StatementCounter } from "../statement-counter.js";

/** The channel the triggers of migration `0005_storage_changes` notify (the migration keeps its own copy of the name). */
export const CHANGES_CHANNEL = "persona_changes";

/** Milliseconds between proofs that the listening connection is alive. */
const HEARTBEAT_MS = 500;

/**
 * Listens for `NOTIFY persona_changes` on a connection of its own and
 * feeds the change feed (revocation seen by every instance
 * within a second). The connection is proved alive every 500 ms with a
 * bounded `select 1` — a connection that hangs without an error would
 * otherwise hide changes — and while it is down the feed stops tracking
 * (caches read through) and it reconnects with backoff.
 *
 * @param statements - counts the `LISTEN` and the heartbeats
 * @returns a function that stops listening
 */
export function listenForChanges(
  url: string,
  changes: ChangeFeed,
  logger: Logger,
  connectTimeoutMs: number,
  statements?: StatementCounter,
): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let retryDelay = 250;

  const drop = (reason: string) => {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    heartbeat = undefined;
    const current = client;
    client = undefined;
    current?.removeAllListeners("notification");
    void current?.end().catch(() => undefined);
    if (changes.tracking) logger.warn({ reason }, "lost the change feed; caches read through");
    changes.setTracking(false);
    if (!stopped) {
      setTimeout(connect, retryDelay).unref();
      retryDelay = Math.min(retryDelay * 2, 5_000);
    }
  };

  const connect = () => {
    if (stopped) return;
    const next = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: connectTimeoutMs,
      keepAlive: true,
      application_name: "persona-reply-changes",
    });
    client = next;
    next.on("error", (error) => {
      if (client === next) drop(error.message);
    });
    next.on("end", () => {
      if (client === next) drop("connection ended");
    });
    next.on("notification", () => changes.changed());
    next
      .connect()
      .then(() => {
        statements?.add();
        return next.query(`LISTEN ${CHANGES_CHANNEL}`);
      })
      .then(() => {
        if (client !== next) return;
        retryDelay = 250;
        changes.setTracking(true);
        heartbeat = setInterval(() => {
          statements?.add();
          next.query("select 1").catch((error: Error) => {
            if (client === next) drop(`heartbeat failed: ${error.message}`);
          });
        }, HEARTBEAT_MS);
        heartbeat.unref();
      })
      .catch((error: Error) => {
        if (client === next) drop(error.message);
      });
  };

  connect();
  return async () => {
    stopped = true;
    if (heartbeat !== undefined) clearInterval(heartbeat);
    changes.setTracking(false);
    await client?.end().catch(() => undefined);
  };
}
