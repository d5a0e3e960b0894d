import type { AccountStore } from "../accounts/account-store.js";
import type { Billing } from "../billing/create-billing.js";
import type { Config } from "../config/config.js";
import type { PersonaEngine } from "../engine/persona-engine.js";
import type { KeyStore } from "../keys/key-store.js";
import type { Logger } from "../logging/logger.js";
import type { Metrics } from "../metrics/metrics.js";
import type { OAuthStore } from "../oauth/oauth-store.js";
import type { OnlineSampler } from "../online-evaluation/online-sampler.js";
import type { PersonaStore } from "../personas/persona-store.js";
import type { Store } from "../storage/store.js";
import type { Tracing } from "../tracing/tracing.js";

/** What the request pipeline uses, and nothing else (built once, see createServices). */
export interface PipelineContext {
  config: Pick<Config, "PERSONA_PUBLIC_URL" | "PERSONA_STORAGE_TIMEOUT_MS">;
  logger: Logger;
  store: Pick<Store, "ledger">;
  keys: KeyStore;
  /** OAuth access tokens of `/mcp`'s tool calls (oauth/mcp-route.ts). */
  oauth: OAuthStore;
  accounts: AccountStore;
  personas: PersonaStore;
  engine: PersonaEngine;
  billing: Billing;
  metrics: Metrics;
  /** Online evaluation: offered every served answer, off the request path (online-evaluation/online-sampler.ts). */
  sampler?: Pick<OnlineSampler, "offer">;
  /** Spans of admission and settlement when tracing is on. */
  tracing?: Tracing;
}
