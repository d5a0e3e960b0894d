/**
 * The attribute names and values of the OpenTelemetry GenAI semantic
 * conventions the service uses. They are still "development" status, so —
 * as `@opentelemetry/semantic-conventions` asks of its `incubating` entry
 * point — they are copied here rather than imported (that entry point is
 * ~0.8 MB to load). Stable names (HTTP, URL, server, error) are imported
 * from the package itself.
 *
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */
export const ATTR_GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const ATTR_GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
export const ATTR_GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
export const ATTR_GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
export const ATTR_GEN_AI_REQUEST_CHOICE_COUNT = "gen_ai.request.choice.count";
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens";
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
/** Opt-in content capture only (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`). */
export const ATTR_GEN_AI_SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions";
/** Opt-in content capture only. */
export const ATTR_GEN_AI_INPUT_MESSAGES = "gen_ai.input.messages";
/** Opt-in content capture only. */
export const ATTR_GEN_AI_OUTPUT_MESSAGES = "gen_ai.output.messages";

/** `gen_ai.operation.name` of a chat completion. */
export const GEN_AI_OPERATION_NAME_VALUE_CHAT = "chat";

/** The persona a span served (our own attributes, `persona.*`). */
export const ATTR_PERSONA_ID = "persona.id";
/** The persona's version, when personas carry one. */
export const ATTR_PERSONA_VERSION = "persona.version";
/** The route target an attempt asked, `upstream:model` (operator names, never secrets). */
export const ATTR_PERSONA_TARGET = "persona.target";
/** How an attempt ended (`ok`, `timeout`, `upstream`, `request`, `aborted`, `cooldown`). */
export const ATTR_PERSONA_ATTEMPT_OUTCOME = "persona.attempt.outcome";
/** The position of an attempt's target in the route (0-based). */
export const ATTR_PERSONA_ATTEMPT_INDEX = "persona.attempt.index";
