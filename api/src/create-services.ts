import { AccountStore } from "./accounts/account-store.js";
import { type BillingOverrides, createBilling } from "./billing/create-billing.js";
import type { Config } from "./config/config.js";
import { PersonaEngine, type ProviderRegistry } from "./engine/persona-engine.js";
import { KeyStore } from "./keys/key-store.js";
import type { Logger } from "./logging/logger.js";
import { instrumentBilling } from "./metrics/instrument-billing.js";
import { instrumentProviders } from "./metrics/instrument-provider.js";
import { createMetrics } from "./metrics/metrics.js";
import { PersonaStore } from "./personas/persona-store.js";
import { createOfflineProvider } from "./providers/offline/offline-provider.js";
import { createOpenAiCompatibleProvider } from "./providers/openai-compatible/openai-compatible-provider.js";
import type { Services } from "./services.js";
import { migrateToLatest, openDatabase } from "./storage/database.js";

/**
 * Opens the store, applies migrations and builds the providers and stores.
 * The OpenAI-compatible provider exists only when PERSONA_OPENAI_BASE_URL is set.
 * Providers and billing are instrumented for the metrics (metrics/).
 */
export async function createServices(
  config: Config,
  logger: Logger,
  overrides: { billing?: BillingOverrides } = {},
): Promise<Services> {
  const database = openDatabase(config.databasePath, {
    poolSize: config.PERSONA_DATABASE_POOL_SIZE,
  });
  await migrateToLatest(database);
  const providers: ProviderRegistry = { offline: createOfflineProvider() };
  if (config.PERSONA_OPENAI_BASE_URL !== undefined) {
    providers["openai-compatible"] = createOpenAiCompatibleProvider({
      baseUrl: config.PERSONA_OPENAI_BASE_URL,
      apiKey: config.PERSONA_OPENAI_API_KEY ?? "unused",
      timeoutMs: config.PERSONA_PROVIDER_TIMEOUT_MS,
      maxRetries: config.PERSONA_PROVIDER_MAX_RETRIES,
    });
  }
  const metrics = createMetrics();
  const billing = createBilling(config, database, logger, overrides.billing);
  instrumentBilling(billing, metrics);
  return {
    config,
    logger,
    database,
    accounts: new AccountStore(database),
    personas: new PersonaStore(database),
    keys: new KeyStore(database),
    engine: new PersonaEngine(
      instrumentProviders(providers, metrics),
      config.PERSONA_PROVIDER_TIMEOUT_MS,
    ),
    billing,
    metrics,
  };
}
