import { Kysely, PostgresDialect } from "kysely";
import type { Logger } from "../../logging/logger.js";
import { ChangeFeed } from "../change-feed.js";
import type { Deadline } from "../deadline.js";
import { migrateToLatest, type SchemaMigrations } from "../migrations.js";
import type { DatabaseSchema } from "../schema.js";
import { StatementCounter } from "../statement-counter.js";
import type { Store } from "../store.js";
import { StoreHealth } from "../store-health.js";
import { listenForChanges } from "./postgres-changes.js";
import { PostgresLedger } from "./postgres-ledger.js";
import {
  createPostgresPool,
  kyselyPool,
  maskedPostgresUrl,
  type PostgresTimeouts,
  queryWithin,
} from "./postgres-pool.js";

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions {
  url: string;
  logger: Logger;
  /** Most connections of the pool. */
  poolSize: number;
  timeouts: PostgresTimeouts;
}

/**
 * Opens the PostgreSQL store: a pool with deadlines everywhere
 * (postgres-pool.ts), kysely over it, the ledger's one-round-trip
 * statements with group-committed settlements, and the change feed
 * listening for the triggers' notifications. Opening connects nothing yet;
 * the first query (the migrations) does.
 */
export function openPostgresStore(options: PostgresStoreOptions): Store {
  const location = maskedPostgresUrl(options.url);
  const health = new StoreHealth(options.logger, location);
  const statements = new StatementCounter();
  const pool = createPostgresPool(options.url, options.poolSize, options.timeouts, health, {
    statements,
  });
  // Admissions and releases need not wait for the WAL flush: a server crash may lose
  // a reservation or a count, never a charge (settlements use the durable pool).
  const relaxedPool = createPostgresPool(
    options.url,
    Math.max(2, Math.ceil(options.poolSize / 2)),
    options.timeouts,
    health,
    { relaxedCommits: true, statements },
  );
  const changes = new ChangeFeed();
  const stopListening = listenForChanges(
    options.url,
    changes,
    options.logger,
    options.timeouts.connectMs,
    statements,
  );
  // Destroying kysely (tests do) also stops the listener, so nothing is left running.
  const database = new Kysely<DatabaseSchema>({
    dialect: new PostgresDialect({
      pool: kyselyPool(pool, health, changes, async () => {
        await stopListening();
        await relaxedPool.end();
      }) as never,
    }),
  });
  const ledger = new PostgresLedger({ durable: pool, relaxed: relaxedPool }, health);
  return {
    dialect: "postgres",
    database,
    ledger,
    changes,
    health,
    location,
    timeoutMs: options.timeouts.statementMs,
    statementCount: () => statements.total,
    async migrate(migrations: SchemaMigrations): Promise<void> {
      // A pool of its own without statement_timeout: an index on a large table may take a while.
      const migrationPool = createPostgresPool(
        options.url,
        1,
        { connectMs: options.timeouts.connectMs, statementMs: 0 },
        health,
        { statements },
      );
      const migrationDatabase = new Kysely<DatabaseSchema>({
        dialect: new PostgresDialect({ pool: kyselyPool(migrationPool, health) as never }),
      });
      try {
        await migrateToLatest(migrationDatabase as unknown as Kysely<unknown>, migrations);
      } finally {
        await migrationDatabase.destroy();
      }
    },
    async probe(instanceId: string, deadline: Deadline): Promise<void> {
      await health.observe(
        queryWithin(pool, deadline, {
          name: "persona_probe",
          text: `with schema_check as (select 1 from accounts where false)
            insert into storage_probes (instance_id, probed_at) values ($1, $2)
            on conflict (instance_id) do update set probed_at = excluded.probed_at`,
          values: [instanceId, new Date().toISOString()],
        }),
      );
    },
    close: () => database.destroy(),
  };
}
