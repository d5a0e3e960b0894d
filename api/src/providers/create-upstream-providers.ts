import { createAnthropicProvider } from "./anthropic/anthropic-provider.js";
import type { ModelProvider } from "./model-provider.js";
import { createOfflineProvider } from "./offline/offline-provider.js";
import { createOpenAiCompatibleProvider } from "./openai-compatible/openai-compatible-provider.js";
import type { Upstream, Upstreams } from "./upstream-config.js";

/** Local servers accept any key; the SDKs want a non-empty one. */
const NO_KEY = "unused";

/** Builds the provider of one upstream from its kind. */
export function createUpstreamProvider(upstream: Upstream): ModelProvider {
  const connection = {
    name: upstream.name,
    apiKey: upstream.apiKey?.reveal() ?? NO_KEY,
    timeoutMs: upstream.timeoutMs,
    maxRetries: upstream.maxRetries,
  };
  switch (upstream.kind) {
    case "offline":
      return createOfflineProvider(upstream.name);
    case "openai-compatible":
      return createOpenAiCompatibleProvider({ ...connection, baseUrl: upstream.baseUrl ?? "" });
    case "anthropic":
      return createAnthropicProvider({ ...connection, baseUrl: upstream.baseUrl ?? "" });
  }
}

/**
 * Builds one provider per configured upstream (DESIGN.md "Model
 * providers"), by upstream name. Nothing is contacted here: `/readyz` and
 * start-up never call an upstream.
 */
export function createUpstreamProviders(upstreams: Upstreams): Map<string, ModelProvider> {
  const providers = new Map<string, ModelProvider>();
  for (const upstream of upstreams.values()) {
    providers.set(upstream.name, createUpstreamProvider(upstream));
  }
  return providers;
}
