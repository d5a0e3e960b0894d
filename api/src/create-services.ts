import { AccountStore } from "./accounts/account-store.js";
import { type BillingOverrides, createBilling } from "./billing/create-billing.js";
import type { Config } from "./config/config.js";
import { ModelRouter } from "./engine/model-router.js";
import { PersonaEngine } from "./engine/persona-engine.js";
import { InstanceHeartbeat, instanceNameOf } from "./instances/instance-heartbeat.js";
import { KeyStore } from "./keys/key-store.js";
import type { Logger } from "./logging/logger.js";
import { instrumentProviders } from "./metrics/instrument-provider.js";
import { routeObserverOf } from "./metrics/instrument-routes.js";
import { createMetrics } from "./metrics/metrics.js";
import { type ClientMetadataFetchOverrides, createOAuthClients } from "./oauth/oauth-clients.js";
import { OAuthStore } from "./oauth/oauth-store.js";
import { OnlineSampler } from "./online-evaluation/online-sampler.js";
import { OnlineScoreStore } from "./online-evaluation/online-score-store.js";
import { CanaryWatch } from "./personas/canary-watch.js";
import { PersonaCanaryStore } from "./personas/persona-canary-store.js";
import { PersonaStore } from "./personas/persona-store.js";
import { createUpstreamProviders } from "./providers/create-upstream-providers.js";
import { SCHEMA_MIGRATIONS } from "./schema-migrations.js";
import type { Services } from "./services.js";
import { openStore } from "./storage/database.js";
import type { SettleInput, SettleOutcome } from "./storage/ledger.js";
import { startTracing } from "./tracing/start-tracing.js";
import { retentionSettingsOf } from "./usage/retention-settings.js";
import { UsageRetention } from "./usage/usage-retention.js";
import { UsageStore } from "./usage/usage-store.js";

/** Test and tool seams of {@link createServices}. */
export interface ServiceOverrides {
  billing?: BillingOverrides;
  /**
   * Storage calls' deadline in milliseconds, instead of
   * `PERSONA_STORAGE_TIMEOUT_MS` (the operator CLI waits longer).
   */
  storageTimeoutMs?: number;
  /** Called when a write starts waiting for a lock another process holds (SQLite). */
  onStorageWaiting?: () => void;
  /** `false`: no tracing whatever the `OTEL_*` settings say (the operator CLI). */
  tracing?: false;
  /** The TLS trust and deadline of client metadata documents' fetch (a test's own CA). */
  clientMetadata?: ClientMetadataFetchOverrides;
}

/**
 * Opens the store, applies migrations and builds the providers and stores.
 * One provider per configured upstream (`config.upstreams`: the upstream file's, or
 * `offline` and, with PERSONA_OPENAI_BASE_URL, `openai-compatible`).
 *
 * @throws {StorageStartupError} when the store cannot be served (exit 78)
 */
export async function createServices(
  config: Config,
  logger: Logger,
  overrides: ServiceOverrides = {},
): Promise<Services> {
  const metrics = createMetrics();
  let refundLateSettlement: (input: SettleInput, outcome: SettleOutcome) => void = () => undefined;
  const store = await openStore({
    url: config.databasePath,
    logger,
    timeoutMs: overrides.storageTimeoutMs ?? config.PERSONA_STORAGE_TIMEOUT_MS,
    connectTimeoutMs: config.PERSONA_DATABASE_CONNECT_TIMEOUT_MS,
    poolSize: config.PERSONA_DATABASE_POOL_SIZE,
    sqlite: {
      busyTimeoutMs: config.PERSONA_SQLITE_BUSY_TIMEOUT_MS,
      walLimitBytes: config.PERSONA_SQLITE_WAL_LIMIT_BYTES,
      maintenanceIntervalMs: 50,
      envFile: config.PERSONA_ENV_FILE,
      allowNew: config.PERSONA_NEW_DATABASE,
      ...(overrides.onStorageWaiting === undefined
        ? {}
        : { onWaiting: overrides.onStorageWaiting }),
      onWalSize: (bytes) => metrics.sqliteWalBytes.set(bytes),
    },
    onLateSettlement: (input, outcome) => refundLateSettlement(input, outcome),
    onLedgerCall: (operation, seconds, outcome) =>
      metrics.storageWriteDuration.observe({ operation, outcome }, seconds),
  });
  metrics.countStorageStatements(store.dialect, () => store.statementCount());
  try {
    await store.migrate(SCHEMA_MIGRATIONS);
  } catch (error) {
    await store.close();
    throw error;
  }
  const providers = await createUpstreamProviders(config.upstreams);
  const billing = createBilling(config, store, logger, overrides.billing);
  refundLateSettlement = (input, outcome) => {
    // Its request was answered 503 when the store did not answer in time.
    if (outcome.chargedMicros === 0) return;
    billing.balances
      .reverseSettlement(input.usage.id, 503)
      .then((refunded) =>
        logger.warn(
          { requestId: input.usage.request_id, refundedMicros: refunded },
          "a settlement committed after its request was answered 503; reversed it",
        ),
      )
      .catch((error: unknown) =>
        logger.error({ err: error }, "reversing a late settlement failed"),
      );
  };
  const accounts = new AccountStore(store.database);
  const personas = new PersonaStore(store.database, store.changes);
  const keys = new KeyStore(store.database, store.changes);
  const oauth = new OAuthStore(store.database, store.changes);
  const oauthClients = createOAuthClients(
    config.PERSONA_OAUTH_CLIENT_METADATA,
    oauth,
    logger,
    overrides.clientMetadata,
  );
  const canaries = new PersonaCanaryStore(store.database);
  const tracing = overrides.tracing === false ? undefined : await startTracing(config, logger);
  const engine = new PersonaEngine(config.upstreams, instrumentProviders(providers, metrics), {
    observer: routeObserverOf(metrics),
    logger,
    ...(tracing === undefined ? {} : { tracing }),
  });
  const traced = tracing === undefined ? {} : { tracing };
  const onlineScores = new OnlineScoreStore(store.database);
  const sampler = new OnlineSampler(
    {
      scores: onlineScores,
      logger,
      metrics,
      // The judge's calls go to the operator's upstreams, outside the engine's route metrics.
      judgeRouter: new ModelRouter(config.upstreams, providers),
      prices: billing.prices,
    },
    {
      capacity: config.PERSONA_SAMPLE_QUEUE_SIZE,
      concurrency: config.PERSONA_SAMPLE_CONCURRENCY,
      deadlineMs: config.PERSONA_SAMPLE_DEADLINE_MS,
      flushIntervalMs: 1_000,
    },
  );
  return {
    config,
    logger,
    store,
    database: store.database,
    accounts,
    personas,
    canaries,
    canaryWatch: new CanaryWatch(
      canaries,
      store.database,
      logger,
      config.PERSONA_CANARY_CHECK_MS,
      onlineScores,
    ),
    sampler,
    onlineScores,
    keys,
    oauth,
    oauthClients,
    engine,
    billing,
    usage: new UsageStore(store),
    metrics,
    ...traced,
    pipeline: {
      config,
      logger,
      store,
      keys,
      oauth,
      accounts,
      personas,
      engine,
      billing,
      metrics,
      sampler,
      ...traced,
    },
    retention: new UsageRetention(store, retentionSettingsOf(config), logger),
    heartbeat: new InstanceHeartbeat(store.database, {
      name: instanceNameOf(config.PERSONA_INSTANCE_ID),
      upstreams: engine.servableUpstreams(),
      logger,
    }),
  };
}
