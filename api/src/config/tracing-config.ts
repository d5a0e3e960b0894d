import { z } from "zod";

const flag = z
  .enum(["true", "false", "TRUE", "FALSE", "True", "False", "1", "0", ""])
  .optional()
  .transform((value) => value !== undefined && ["true", "1"].includes(value.toLowerCase()));

const endpoint = z
  .url({ protocol: /^https?$/u, error: "must be an http:// or https:// URL" })
  .optional()
  .or(z.literal("").transform(() => undefined));

/**
 * The OpenTelemetry variables the service reads itself (docs/CONFIGURATION.md
 * "Tracing (OpenTelemetry)"), spread into the server configuration schema. Their names and
 * meanings are OpenTelemetry's (the SDK environment variable
 * specification); the others (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`,
 * `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_*`) are
 * read by the SDK from the process environment. Tracing is off, and no SDK
 * is loaded, unless an endpoint or `OTEL_TRACES_EXPORTER` is set.
 */
export const tracingConfigShape = {
  /** `true` turns tracing off whatever else is set (the SDK's kill switch). */
  OTEL_SDK_DISABLED: flag,
  /** Base URL of an OTLP/HTTP receiver; traces go to `{it}/v1/traces`. */
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  /** Full URL traces are sent to; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
  /**
   * `otlp` (OTLP/HTTP JSON; to `http://localhost:4318/v1/traces` when no
   * endpoint is set), `console` (spans on standard output, for a look), or
   * `none`. Unset: `otlp` when an endpoint is set, else tracing is off.
   */
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "console", "none"]).optional(),
  /** `service.name` of the spans (default `persona-reply`). */
  OTEL_SERVICE_NAME: z.string().min(1).max(200).optional(),
  /**
   * GenAI semantic conventions' opt-in: `true` records the prompt (system
   * instructions and messages) and the answers in the upstream spans
   * (`gen_ai.input.messages`, `gen_ai.output.messages`). Off by default:
   * spans then never carry message text.
   */
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: flag,
};
