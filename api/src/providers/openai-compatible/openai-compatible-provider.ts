import { Agent, errors, RetryAgent } from "undici";
import { traceHeaders } from "../../tracing/tracing.js";
import {
  type ModelProvider,
  ProviderError,
  type ProviderRequest,
  type ProviderResult,
  type UpstreamConnection,
} from "../model-provider.js";
import { type CandidateSampling, callPerCandidate } from "../parallel-candidates.js";
import { providerErrorFromStatus } from "../upstream-failure.js";
import { type ChatCompletion, chatCompletionSchema } from "./chat-completion.js";

/** Statuses a call is retried on (then the route's next target): the openai SDK's set, and 529. */
const RETRIED_STATUSES = [408, 409, 429, 500, 502, 503, 504, 529];

/** undici's errors that mean no answer came in time. */
const TIMEOUT_ERRORS = [
  errors.HeadersTimeoutError,
  errors.BodyTimeoutError,
  errors.ConnectTimeoutError,
] as const;

/**
 * A transport failure (after the retries) as a {@link ProviderError}: an
 * answer whose status was retried until the retries ran out keeps its status;
 * no answer in time is `timeout`; anything else, "could not reach". An abort
 * (the request's deadline or a client gone) passes through for the engine.
 */
function providerErrorFromTransport(error: unknown): unknown {
  if (error instanceof ProviderError) return error;
  if (error instanceof errors.RequestRetryError) {
    const retryAfter = error.headers?.["retry-after"];
    return providerErrorFromStatus(
      error.statusCode,
      typeof retryAfter === "string" ? retryAfter : null,
      error,
    );
  }
  if (TIMEOUT_ERRORS.some((type) => error instanceof type)) {
    return new ProviderError("timeout", "the upstream timed out", { cause: error });
  }
  if (error instanceof errors.RequestAbortedError || (error as Error)?.name === "AbortError") {
    return error;
  }
  return new ProviderError("upstream", "could not reach the upstream", { cause: error });
}

/**
 * A provider for any server speaking the chat completions protocol (hosted
 * APIs, Ollama, vLLM, llama.cpp's server): `POST {baseUrl}/chat/completions`
 * over undici's pooled keep-alive connections, with undici's retry handler —
 * connection errors and 408/409/429/5xx/529, exponential backoff from
 * 500 ms, `Retry-After` honoured — and the answer read through a zod schema
 * of the fields used. (The official `openai` SDK did the same at about six
 * times the CPU per call: docs/BENCHMARKS.md.) Each candidate is its own
 * call, made in parallel ({@link callPerCandidate}), because many compatible
 * servers ignore `n`; when there are several, each asks for a `temperature`
 * and a `seed` of its own, so a deterministic server answers them differently.
 *
 * @throws {ProviderError} `timeout`, `upstream` or `request` on any upstream failure
 *   (see upstream-failure.ts)
 */
export function createOpenAiCompatibleProvider(options: UpstreamConnection): ModelProvider {
  const endpoint = new URL(`${options.baseUrl.replace(/\/+$/u, "")}/chat/completions`);
  const dispatcher = new RetryAgent(
    new Agent({
      keepAliveTimeout: 30_000,
      connectTimeout: Math.min(options.timeoutMs, 10_000),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    }),
    {
      maxRetries: options.maxRetries,
      methods: ["POST"],
      statusCodes: RETRIED_STATUSES,
      minTimeout: 500,
      maxTimeout: 8_000,
      timeoutFactor: 2,
      retryAfter: true,
    },
  );
  const headers = {
    "content-type": "application/json",
    accept: "application/json",
    authorization: `Bearer ${options.apiKey}`,
  };

  async function createCompletion(
    request: ProviderRequest,
    signal: AbortSignal,
    sampling: CandidateSampling | undefined,
  ) {
    let response: Awaited<ReturnType<typeof dispatcher.request>>;
    try {
      response = await dispatcher.request({
        origin: endpoint.origin,
        path: `${endpoint.pathname}${endpoint.search}`,
        method: "POST",
        // The active span's `traceparent` (tracing/route-spans.ts); none when tracing is off.
        headers: { ...headers, ...traceHeaders() },
        body: JSON.stringify({
          model: request.model,
          messages: request.messages,
          ...(sampling === undefined
            ? {}
            : { temperature: sampling.temperature, seed: sampling.seed }),
        }),
        signal,
      });
    } catch (error) {
      throw providerErrorFromTransport(error);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump().catch(() => undefined);
      const retryAfter = response.headers["retry-after"];
      throw providerErrorFromStatus(
        response.statusCode,
        typeof retryAfter === "string" ? retryAfter : null,
      );
    }
    let completion: ChatCompletion;
    try {
      completion = chatCompletionSchema.parse(await response.body.json());
    } catch (error) {
      throw (error as Error)?.name === "AbortError"
        ? error
        : new ProviderError("upstream", "the upstream answer could not be read", { cause: error });
    }
    const content = completion.choices[0]?.message?.content;
    if (typeof content !== "string") {
      throw new ProviderError("upstream", "the upstream returned no message content");
    }
    return {
      text: content,
      model: completion.model ?? undefined,
      inputTokens: completion.usage?.prompt_tokens ?? 0,
      outputTokens: completion.usage?.completion_tokens ?? 0,
    };
  }

  return {
    name: options.name,
    async complete(request: ProviderRequest): Promise<ProviderResult> {
      const answers = await callPerCandidate(
        request.candidates,
        request.signal,
        (signal, sampling) => createCompletion(request, signal, sampling),
      );
      const model = answers[0]?.model;
      return {
        texts: answers.map((answer) => answer.text),
        ...(model === undefined ? {} : { model }),
        usage: {
          inputTokens: answers.reduce((sum, answer) => sum + answer.inputTokens, 0),
          outputTokens: answers.reduce((sum, answer) => sum + answer.outputTokens, 0),
        },
      };
    },
  };
}
