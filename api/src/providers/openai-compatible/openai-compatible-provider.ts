import OpenAI from "openai";
import {
  type ModelProvider,
  ProviderError,
  type ProviderRequest,
  type ProviderResult,
} from "../model-provider.js";
import { providerErrorFromSdk } from "../upstream-failure.js";

/** Settings of one OpenAI-compatible upstream (server configuration, never the customer's). */
export interface OpenAiCompatibleOptions {
  /** The upstream's name in the operator configuration (metrics label). */
  name: string;
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1` (Ollama). */
  baseUrl: string;
  /** Upstream key; local servers accept any non-empty value. */
  apiKey: string;
  /** Per-attempt timeout in milliseconds. */
  timeoutMs: number;
  /** SDK retries on connection errors, 408/409/429/5xx. */
  maxRetries: number;
}

/**
 * A provider for any server speaking the chat completions protocol (hosted
 * APIs, Ollama, vLLM, llama.cpp's server) through the official `openai` SDK.
 * Each candidate is its own call, made in parallel, because many compatible
 * servers ignore `n`.
 *
 * @throws {ProviderError} `timeout`, `upstream` or `request` on any upstream failure
 *   (see upstream-failure.ts)
 */
export function createOpenAiCompatibleProvider(options: OpenAiCompatibleOptions): ModelProvider {
  const client = new OpenAI({
    baseURL: options.baseUrl,
    apiKey: options.apiKey,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
  });
  return {
    name: options.name,
    async complete(request: ProviderRequest): Promise<ProviderResult> {
      // When one candidate fails the request fails: the other calls are stopped with it.
      const siblings = new AbortController();
      const signal = AbortSignal.any([request.signal, siblings.signal]);
      const calls = Array.from({ length: request.candidates }, () =>
        client.chat.completions.create(
          { model: request.model, messages: request.messages },
          { signal },
        ),
      );
      for (const call of calls) call.catch(() => siblings.abort());
      try {
        const completions = await Promise.all(calls);
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
