import type { ModelProvider } from "./model-provider.js";
import { createOfflineProvider } from "./offline/offline-provider.js";
import type { Upstream, Upstreams } from "./upstream-config.js";

/** Local servers accept any key; the SDKs want a non-empty one. */
const NO_KEY = "unused";

/**
 * Builds the provider of one upstream from its kind. The HTTP client or SDK
 * of a kind (undici, the Anthropic SDK) is loaded only when an upstream of
 * that kind is configured: an offline-only service and the operator CLI
 * start without them (together ~1 s of module loading on a busy machine).
 */
async function createUpstreamProvider(upstream: Upstream): Promise<ModelProvider> {
  const connection = {
    name: upstream.name,
    apiKey: upstream.apiKey?.reveal() ?? NO_KEY,
    timeoutMs: upstream.timeoutMs,
    maxRetries: upstream.maxRetries,
  };
  switch (upstream.kind) {
    case "offline":
      return createOfflineProvider(upstream.name);
    case "openai-compatible": {
      const { createOpenAiCompatibleProvider } = await import(
        "./openai-compatible/openai-compatible-provider.js"
      );
      return createOpenAiCompatibleProvider({ ...connection, baseUrl: upstream.baseUrl ?? "" });
    }
    case "anthropic": {
      const { createAnthropicProvider } = await import("./anthropic/anthropic-provider.js");
      return createAnthropicProvider({ ...connection, baseUrl: upstream.baseUrl ?? "" });
    }
  }
}

/**
 * Builds one provider per configured upstream (docs/CONFIGURATION.md "The
 * upstream file"), by upstream name. Nothing is contacted here: `/readyz` and
 * start-up never call an upstream.
 *
 * @returns the providers by upstream name, once the modules of the kinds in use are loaded
 */
export async function createUpstreamProviders(
  upstreams: Upstreams,
): Promise<Map<string, ModelProvider>> {
  const providers = new Map<string, ModelProvider>();
  for (const upstream of upstreams.values()) {
    providers.set(upstream.name, await createUpstreamProvider(upstream));
  }
  return providers;
}
