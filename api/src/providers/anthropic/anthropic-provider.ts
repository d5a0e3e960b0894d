import type Anthropic from "@anthropic-ai/sdk";
import { traceHeaders } from "../../tracing/tracing.js";
import {
  type ModelProvider,
  ProviderError,
  type ProviderRequest,
  type ProviderResult,
  type UpstreamConnection,
} from "../model-provider.js";
import { callPerCandidate } from "../parallel-candidates.js";
import { providerErrorFromSdk } from "../upstream-failure.js";
import { toAnthropicPrompt } from "./anthropic-messages.js";

/**
 * A provider for the Anthropic Messages API through the official
 * `@anthropic-ai/sdk`: the persona prompt and client context go in `system`,
 * the history in alternating user/assistant turns (see
 * {@link toAnthropicPrompt}), `max_tokens` is the upstream's
 * `maxOutputTokens`, and the usage of the answer is reported for billing
 * (input tokens including any cache reads and writes). Each candidate is its
 * own call, made in parallel ({@link callPerCandidate}), with a temperature
 * of its own when there are several.
 *
 * @throws {ProviderError} the SDK's errors mapped by status: 529 overloaded,
 *   5xx, 429, 401/403/404, timeouts and connection errors are `upstream` or
 *   `timeout` (the route falls back); 400/413/422 are `request` (it does not)
 */
export function createAnthropicProvider(options: UpstreamConnection): ModelProvider {
  // The SDK is loaded on the first call, so processes that never call this
  // upstream (the operator CLI, most tests) do not pay for loading it.
  let loading: Promise<{ sdk: typeof Anthropic; client: Anthropic }> | undefined;
  const load = () => {
    loading ??= import("@anthropic-ai/sdk").then(({ default: sdk }) => ({
      sdk,
      client: new sdk({
        baseURL: options.baseUrl,
        apiKey: options.apiKey,
        timeout: options.timeoutMs,
        maxRetries: options.maxRetries,
      }),
    }));
    return loading;
  };
  return {
    name: options.name,
    async complete(request: ProviderRequest): Promise<ProviderResult> {
      const { sdk, client } = await load();
      const prompt = toAnthropicPrompt(request.messages);
      try {
        const answers = await callPerCandidate(
          request.candidates,
          request.signal,
          (signal, sampling) =>
            client.messages.create(
              {
                model: request.model,
                max_tokens: request.maxOutputTokens,
                ...(prompt.system === "" ? {} : { system: prompt.system }),
                messages: prompt.messages,
                // The Messages API has no seed: temperature alone varies the candidates.
                ...(sampling === undefined ? {} : { temperature: sampling.temperature }),
              },
              // The active span's `traceparent` (tracing/route-spans.ts); none when tracing is off.
              { signal, headers: traceHeaders() },
            ),
        );
        let inputTokens = 0;
        let outputTokens = 0;
        const texts = answers.map((answer) => {
          const usage = answer.usage;
          inputTokens +=
            usage.input_tokens +
            (usage.cache_creation_input_tokens ?? 0) +
            (usage.cache_read_input_tokens ?? 0);
          outputTokens += usage.output_tokens;
          const parts = answer.content.flatMap((block) =>
            block.type === "text" ? [block.text] : [],
          );
          if (parts.length === 0) {
            throw new ProviderError("upstream", "the upstream returned no text content");
          }
          return parts.join("");
        });
        const model = answers[0]?.model;
        return {
          texts,
          usage: { inputTokens, outputTokens },
          ...(model === undefined ? {} : { model }),
        };
      } catch (error) {
        throw providerErrorFromSdk(error, sdk);
      }
    },
  };
}
