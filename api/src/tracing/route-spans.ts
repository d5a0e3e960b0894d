import { type Attributes, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  ATTR_ERROR_TYPE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from "@opentelemetry/semantic-conventions";
import { describeTarget, type RouteTarget } from "../personas/model-route.js";
import type { Persona } from "../personas/persona.js";
import {
  ProviderError,
  type ProviderRequest,
  type ProviderResult,
} from "../providers/model-provider.js";
import type { Upstream } from "../providers/upstream-config.js";
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_CHOICE_COUNT,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_PERSONA_ATTEMPT_INDEX,
  ATTR_PERSONA_ATTEMPT_OUTCOME,
  ATTR_PERSONA_ID,
  ATTR_PERSONA_TARGET,
  ATTR_PERSONA_VERSION,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
} from "./semantic-attributes.js";
import type { Tracing } from "./tracing.js";

/** Name of the span of one attempt on one target of a persona's route. */
export const ROUTE_ATTEMPT_SPAN = "route attempt";

/** The persona attributes of a span: `persona.id` and `persona.version` (the version that answers). */
export function personaAttributes(persona: Persona): Attributes {
  return { [ATTR_PERSONA_ID]: persona.id, [ATTR_PERSONA_VERSION]: persona.version };
}

/**
 * `gen_ai.provider.name` of an upstream: `anthropic` for the Anthropic
 * protocol, `openai` for an OpenAI-compatible upstream at openai.com, else
 * the operator's upstream name (e.g. `ollama`, `offline`).
 */
export function genAiProviderName(upstream: Upstream): string {
  if (upstream.kind === "anthropic") return "anthropic";
  if (upstream.kind === "openai-compatible" && upstream.baseUrl !== undefined) {
    const host = new URL(upstream.baseUrl).hostname;
    if (host === "openai.com" || host.endsWith(".openai.com")) return "openai";
  }
  return upstream.name;
}

/** How a failed call or attempt is named in `error.type`: a provider failure's kind, else the error's name. */
function errorType(error: unknown): string {
  if (error instanceof ProviderError) return error.kind;
  return error instanceof Error ? error.name : "_OTHER";
}

/**
 * Runs one attempt of a route inside an INTERNAL span `route attempt`,
 * child of the active span, with `persona.id`, `persona.version`,
 * `persona.target` (`upstream:model`), `persona.attempt.index` and the
 * outcome (`persona.attempt.outcome`: `ok`, the failure's kind, or
 * `aborted` when the client went away; plus `error.type` and the error
 * status on failure).
 */
export function traceAttempt<T>(
  tracing: Tracing,
  target: RouteTarget,
  index: number,
  persona: Persona,
  clientSignal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  return tracing.tracer.startActiveSpan(
    ROUTE_ATTEMPT_SPAN,
    {
      attributes: {
        ...personaAttributes(persona),
        [ATTR_PERSONA_TARGET]: describeTarget(target),
        [ATTR_PERSONA_ATTEMPT_INDEX]: index,
      },
    },
    async (span) => {
      try {
        const value = await work();
        span.setAttribute(ATTR_PERSONA_ATTEMPT_OUTCOME, "ok");
        return value;
      } catch (error) {
        const type = clientSignal?.aborted === true ? "aborted" : errorType(error);
        span.setAttributes({ [ATTR_PERSONA_ATTEMPT_OUTCOME]: type, [ATTR_ERROR_TYPE]: type });
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Runs one upstream call inside a CLIENT span following the GenAI semantic
 * conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/):
 * named `chat {model}`, with `gen_ai.operation.name`, `gen_ai.provider.name`,
 * `gen_ai.request.model`, `gen_ai.response.model` (when the provider
 * reports it), `gen_ai.usage.input_tokens` / `output_tokens`,
 * `server.address` / `server.port`, `error.type` on failure, and the
 * persona's attributes. The span is active during the call, so the
 * provider's `traceparent` names it. Message text (system instructions,
 * input and output messages) only with `captureContent`.
 */
export function traceChat(
  tracing: Tracing,
  upstream: Upstream,
  target: RouteTarget,
  request: ProviderRequest,
  call: () => Promise<ProviderResult>,
): Promise<ProviderResult> {
  const server = upstream.baseUrl === undefined ? undefined : new URL(upstream.baseUrl);
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
    [ATTR_GEN_AI_PROVIDER_NAME]: genAiProviderName(upstream),
    [ATTR_GEN_AI_REQUEST_MODEL]: request.model,
    [ATTR_GEN_AI_REQUEST_MAX_TOKENS]: request.maxOutputTokens,
    ...(request.candidates === 1 ? {} : { [ATTR_GEN_AI_REQUEST_CHOICE_COUNT]: request.candidates }),
    ...personaAttributes(request.persona),
    [ATTR_PERSONA_TARGET]: describeTarget(target),
    ...(server === undefined
      ? {}
      : {
          [ATTR_SERVER_ADDRESS]: server.hostname,
          [ATTR_SERVER_PORT]: Number(server.port || (server.protocol === "https:" ? 443 : 80)),
        }),
    ...(tracing.captureContent ? inputContent(request) : {}),
  };
  return tracing.tracer.startActiveSpan(
    `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${request.model}`,
    { kind: SpanKind.CLIENT, attributes },
    async (span) => {
      try {
        const result = await call();
        span.setAttributes({
          ...(result.model === undefined ? {} : { [ATTR_GEN_AI_RESPONSE_MODEL]: result.model }),
          ...(result.usage === undefined
            ? {}
            : {
                [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: result.usage.inputTokens,
                [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: result.usage.outputTokens,
              }),
          ...(tracing.captureContent
            ? {
                [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify(
                  result.texts.map((text) => ({
                    role: "assistant",
                    parts: [{ type: "text", content: text }],
                    finish_reason: "stop",
                  })),
                ),
              }
            : {}),
        });
        return result;
      } catch (error) {
        span.setAttribute(ATTR_ERROR_TYPE, errorType(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** The prompt as the GenAI conventions' opt-in attributes (JSON strings). */
function inputContent(request: ProviderRequest): Attributes {
  const system = request.messages.filter((message) => message.role === "system");
  const rest = request.messages.filter((message) => message.role !== "system");
  return {
    [ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]: JSON.stringify(
      system.map((message) => ({ type: "text", content: message.content })),
    ),
    [ATTR_GEN_AI_INPUT_MESSAGES]: JSON.stringify(
      rest.map((message) => ({
        role: message.role,
        parts: [{ type: "text", content: message.content }],
      })),
    ),
  };
}
