import type { ModelProvider } from "./model-provider.js";
import type { Upstream, Upstreams } from "./upstream-config.js";

/**
 * Whether this process can call an upstream: it is configured, a provider
 * was built for it, and it holds the key its kind needs. An `anthropic`
 * upstream needs one; an `openai-compatible` upstream that names
 * `apiKeyEnv` has its key (start-up refuses a key variable that is unset)
 * and one without serves local servers that want none; `offline` needs
 * nothing.
 */
export function isServable(
  upstream: Upstream | undefined,
  providers: ReadonlyMap<string, ModelProvider>,
): upstream is Upstream {
  if (upstream === undefined || !providers.has(upstream.name)) return false;
  return upstream.kind !== "anthropic" || (upstream.apiKey?.reveal() ?? "") !== "";
}

/**
 * The names of the upstreams this process can serve ({@link isServable}),
 * sorted: what an instance publishes for `persona-admin` to check routes
 * against (instances/instance-heartbeat.ts).
 */
export function servableUpstreams(
  upstreams: Upstreams,
  providers: ReadonlyMap<string, ModelProvider>,
): string[] {
  return [...upstreams.values()]
    .filter((upstream) => isServable(upstream, providers))
    .map((upstream) => upstream.name)
    .sort();
}
