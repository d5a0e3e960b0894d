import type { AccountStore } from "./accounts/account-store.js";
import type { Billing } from "./billing/create-billing.js";
import type { Config } from "./config/config.js";
import type { PersonaEngine } from "./engine/persona-engine.js";
import type { InstanceHeartbeat } from "./instances/instance-heartbeat.js";
import type { KeyStore } from "./keys/key-store.js";
import type { Logger } from "./logging/logger.js";
import type { Metrics } from "./metrics/metrics.js";
import type { OAuthClients } from "./oauth/oauth-clients.js";
import type { OAuthStore } from "./oauth/oauth-store.js";
import type { OnlineSampler } from "./online-evaluation/online-sampler.js";
import type { OnlineScoreStore } from "./online-evaluation/online-score-store.js";
import type { CanaryWatch } from "./personas/canary-watch.js";
import type { PersonaCanaryStore } from "./personas/persona-canary-store.js";
import type { PersonaStore } from "./personas/persona-store.js";
import type { PipelineContext } from "./pipeline/pipeline-context.js";
import type { Database, Store } from "./storage/store.js";
import type { Tracing } from "./tracing/tracing.js";
import type { UsageRetention } from "./usage/usage-retention.js";
import type { UsageStore } from "./usage/usage-store.js";

/** What the routes need, built once at start-up (see createServices). */
export interface Services {
  config: Config;
  logger: Logger;
  /** The storage layer: kysely, the ledger operations, the change feed, health. */
  store: Store;
  /** `store.database`, the query builder. */
  database: Database;
  accounts: AccountStore;
  personas: PersonaStore;
  /** Persona canaries: start, stop, history (`persona-admin persona canary`). */
  canaries: PersonaCanaryStore;
  /** The canaries' automatic stop: its periodic check is started by the server. */
  canaryWatch: CanaryWatch;
  keys: KeyStore;
  /** The OAuth authorization server's clients, grants (connected apps), codes and tokens. */
  oauth: OAuthStore;
  /** The OAuth clients: registered ones and URL client IDs (client ID metadata documents). */
  oauthClients: OAuthClients;
  engine: PersonaEngine;
  /** Balances, rate limits, prices and x402 payments. */
  billing: Billing;
  /** Usage rows: the usage report, records and charges read back. */
  usage: UsageStore;
  /** Prometheus metrics of this instance (served at `/metrics`). */
  metrics: Metrics;
  /** OpenTelemetry tracing when configured (tracing/start-tracing.ts); flushed by the server's stop. */
  tracing?: Tracing;
  /** The request pipeline's dependencies (pipeline/metered-request.ts). */
  pipeline: PipelineContext;
  /** Online evaluation's sampler: its periodic write is started by the server. */
  sampler: OnlineSampler;
  /** Online evaluation's scores and kept samples. */
  onlineScores: OnlineScoreStore;
  /** Usage retention: its background job is started by the server. */
  retention: UsageRetention;
  /**
   * This instance's row of which upstreams it can serve, for `persona-admin`'s
   * route checks: started and stopped by the server (the CLI never starts it).
   */
  heartbeat: InstanceHeartbeat;
}
