import type { AccountStore } from "./accounts/account-store.js";
import type { Billing } from "./billing/create-billing.js";
import type { Config } from "./config/config.js";
import type { PersonaEngine } from "./engine/persona-engine.js";
import type { KeyStore } from "./keys/key-store.js";
import type { Logger } from "./logging/logger.js";
import type { Metrics } from "./metrics/metrics.js";
import type { PersonaStore } from "./personas/persona-store.js";
import type { Database } from "./storage/database.js";

/** What the routes need, built once at start-up (see createServices). */
export interface Services {
  config: Config;
  logger: Logger;
  database: Database;
  accounts: AccountStore;
  personas: PersonaStore;
  keys: KeyStore;
  engine: PersonaEngine;
  /** Balances, usage, rate limits, prices and x402 payments. */
  billing: Billing;
  /** Prometheus metrics of this instance (served at `/metrics`). */
  metrics: Metrics;
}
