import { context, propagation, trace } from "@opentelemetry/api";
import type { Config } from "../config/config.js";
import type { Logger } from "../logging/logger.js";
import type { Tracing } from "./tracing.js";

/** The tracer's instrumentation scope. */
const SCOPE = "persona-reply";

/**
 * How long, in milliseconds, the spans still buffered at shutdown may take
 * to reach the collector before the service stops without them (a
 * container's grace after SIGTERM is 10 s by default, and the drain comes
 * first).
 */
export const SHUTDOWN_EXPORT_MS = 1_000;

/** Where OTLP/HTTP traces go when OTEL_TRACES_EXPORTER=otlp names no endpoint (the OTLP default). */
const DEFAULT_TRACES_ENDPOINT = "http://localhost:4318/v1/traces";

type TracingConfig = Pick<
  Config,
  | "OTEL_SDK_DISABLED"
  | "OTEL_EXPORTER_OTLP_ENDPOINT"
  | "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
  | "OTEL_TRACES_EXPORTER"
  | "OTEL_SERVICE_NAME"
  | "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
>;

/**
 * Where spans go under a configuration: an OTLP/HTTP URL, `console`, or
 * undefined when tracing is off (OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none,
 * or neither an endpoint nor an exporter set). The traces endpoint is used
 * as given; the general one gets `/v1/traces` appended (OTLP exporter spec).
 */
export function tracesDestination(config: TracingConfig): string | "console" | undefined {
  if (config.OTEL_SDK_DISABLED || config.OTEL_TRACES_EXPORTER === "none") return undefined;
  if (config.OTEL_TRACES_EXPORTER === "console") return "console";
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) {
    return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  }
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined) {
    return `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/u, "")}/v1/traces`;
  }
  return config.OTEL_TRACES_EXPORTER === "otlp" ? DEFAULT_TRACES_ENDPOINT : undefined;
}

/**
 * Starts OpenTelemetry tracing when the configuration asks for it (see
 * {@link tracesDestination}), else returns undefined without loading the
 * SDK (its packages are imported here, dynamically, only then). Registers
 * a Node tracer provider globally — the async-context manager and the W3C
 * trace-context propagator — with a batch span processor and the OTLP/HTTP
 * (JSON) exporter. The sampler, exporter headers, batch and resource
 * settings are the SDK's own `OTEL_*` variables, read from the process
 * environment (default sampler: `parentbased_always_on`).
 *
 * One per process: {@link Tracing.shutdown} flushes (for at most
 * {@link SHUTDOWN_EXPORT_MS}, whatever the collector does) and unregisters it.
 */
export async function startTracing(
  config: TracingConfig,
  logger: Logger,
): Promise<Tracing | undefined> {
  const destination = tracesDestination(config);
  if (destination === undefined) return undefined;
  const [sdk, core, resources, semconv] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/core"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  const exporter =
    destination === "console"
      ? new sdk.ConsoleSpanExporter()
      : new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter({
          url: destination,
        });
  const resource = resources
    .defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(
      resources.resourceFromAttributes({
        [semconv.ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME ?? SCOPE,
      }),
    );
  const provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  provider.register({ propagator: new core.W3CTraceContextPropagator() });
  logger.info(
    { traces: destination === "console" ? "console" : redactEndpoint(destination) },
    "OpenTelemetry tracing is on",
  );
  let stopped: Promise<void> | undefined;
  return {
    tracer: provider.getTracer(SCOPE),
    captureContent: config.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
    flush: () => provider.forceFlush(),
    shutdown() {
      // The exporter retries a refused connection for seconds and waits 10 s for
      // a collector that never answers: the process does not wait for either.
      stopped ??= core
        .callWithTimeout(provider.shutdown(), SHUTDOWN_EXPORT_MS)
        .catch((error: unknown) =>
          error instanceof core.TimeoutError
            ? logger.warn(
                { waitedMs: SHUTDOWN_EXPORT_MS },
                "the trace collector did not take the last spans in time; stopping without them",
              )
            : logger.warn({ err: error }, "exporting the last spans failed at shutdown"),
        )
        .finally(() => {
          trace.disable();
          propagation.disable();
          context.disable();
        });
      return stopped;
    },
  };
}

/** An endpoint URL without credentials or query (which may hold tokens), for a log line. */
function redactEndpoint(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
