import type { ProviderRegistry } from "../engine/persona-engine.js";
import { type ModelProvider, ProviderError } from "../providers/model-provider.js";
import type { Metrics, ProviderOutcome } from "./metrics.js";

function failureKind(error: unknown, signal: AbortSignal): ProviderOutcome {
  if (error instanceof ProviderError && error.kind !== "upstream") return error.kind;
  if (signal.aborted) {
    // The engine's deadline aborts with a TimeoutError; a client that left, with an AbortError.
    const reason: unknown = signal.reason;
    return reason instanceof DOMException && reason.name === "TimeoutError" ? "timeout" : "aborted";
  }
  return "upstream";
}

/**
 * Wraps a provider so each call is timed
 * (`persona_provider_request_duration_seconds{provider, outcome}`) and each
 * failure counted (`persona_provider_errors_total{provider, kind}`). A
 * candidate whose raw text is blank counts as `empty` (the engine then
 * answers 502). The call itself is passed through unchanged.
 */
export function instrumentProvider(provider: ModelProvider, metrics: Metrics): ModelProvider {
  return {
    name: provider.name,
    async complete(request) {
      const stopTimer = metrics.providerDuration.startTimer({ provider: provider.name });
      try {
        const result = await provider.complete(request);
        const empty = result.texts.length === 0 || result.texts.some((text) => text.trim() === "");
        if (empty) metrics.providerErrors.inc({ provider: provider.name, kind: "empty" });
        stopTimer({ outcome: empty ? "empty" : "ok" });
        return result;
      } catch (error) {
        const kind = failureKind(error, request.signal);
        metrics.providerErrors.inc({ provider: provider.name, kind });
        stopTimer({ outcome: kind });
        throw error;
      }
    },
  };
}

/** {@link instrumentProvider} applied to every provider of a registry. */
export function instrumentProviders(
  providers: ProviderRegistry,
  metrics: Metrics,
): ProviderRegistry {
  const instrumented = new Map<string, ModelProvider>();
  for (const [name, provider] of providers) {
    instrumented.set(name, instrumentProvider(provider, metrics));
  }
  return instrumented;
}
