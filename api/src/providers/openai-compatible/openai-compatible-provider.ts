import OpenAI from "openai";
import {
  type ModelProvider,
  ProviderError,
  type ProviderRequest,
  type ProviderResult,
  type UpstreamConnection,
} from "../model-provider.js";
import { callPerCandidate } from "../parallel-candidates.js";
import { providerErrorFromSdk } from "../upstream-failure.js";

/**
 * A provider for any server speaking the chat completions protocol (hosted
 * APIs, Ollama, vLLM, llama.cpp's server) through the official `openai` SDK.
 * Each candidate is its own call, made in parallel ({@link callPerCandidate}),
 * because many compatible servers ignore `n`.
 *
 * @throws {ProviderError} `timeout`, `upstream` or `request` on any upstream failure
 *   (see upstream-failure.ts)
 */
export function createOpenAiCompatibleProvider(options: UpstreamConnection): ModelProvider {
  const client = new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
  });
  return {
    name: options.name,
    async complete(request: ProviderRequest): Promise<ProviderResult> {
      try {
        const completions = await callPerCandidate(request.candidates, request.signal, (signal) =>
          client.chat.completions.create(
            { model: request.model, messages: request.messages },
            { signal },
          ),
        );
        const texts = completions.map((completion) => {
          const content = completion.choices[0]?.message?.content;
          if (typeof content !== "string") {
            throw new ProviderError("upstream", "the upstream returned no message content");
          }
          return content;
        });
        return {
          texts,
          usage: {
            inputTokens: completions.reduce((sum, c) => sum + (c.usage?.prompt_tokens ?? 0), 0),
            outputTokens: completions.reduce(
              (sum, c) => sum + (c.usage?.completion_tokens ?? 0),
              0,
            ),
          },
        };
      } catch (error) {
        throw providerErrorFromSdk(error, OpenAI);
      }
    },
  };
}
