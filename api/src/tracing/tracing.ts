import {
  type Attributes,
  context,
  propagation,
  SpanStatusCode,
  type Tracer,
} from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";

/**
 * Tracing of a running service when the operator configured it (see
 * startTracing); absent otherwise, and then nothing on the request path
 * starts a span. Spans are made through `@opentelemetry/api` with this
 * tracer; the active span travels in the async context.
 */
export interface Tracing {
  /** The service's tracer (instrumentation scope `persona-reply`). */
  tracer: Tracer;
  /**
   * Whether message text may be recorded (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`);
   * false: no span carries a prompt, a message or an answer.
   */
  captureContent: boolean;
  /** Exports the spans ended so far (they are otherwise sent in batches, every 5 s by default). */
  flush(): Promise<void>;
  /** Exports the spans still buffered, then stops the SDK and unregisters it. Never throws. */
  shutdown(): Promise<void>;
}

/**
 * The trace headers of the active context (W3C `traceparent`, and
 * `tracestate` when there is one) for an outgoing request, e.g. to an
 * upstream. Empty when tracing is off: no propagator is registered then.
 */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return headers;
}

/**
 * Runs `work` inside an INTERNAL span `name`, child of the active span, when
 * tracing is on; else just runs it. A failure sets the error status and
 * `error.type`: the error's `code` (a ServiceError's, e.g.
 * `rate_limited`) when it has one, else its name.
 */
export function inSpan<T>(
  tracing: Tracing | undefined,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (tracing === undefined) return work();
  return tracing.tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      span.setAttribute(
        ATTR_ERROR_TYPE,
        typeof code === "string" ? code : error instanceof Error ? error.name : "_OTHER",
      );
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
