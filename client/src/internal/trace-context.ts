/**
 * Trace context of outgoing requests (W3C Trace Context): how the client
 * continues a trace it is given, so the caller's span, the service's spans
 * and the upstream's form one trace.
 */

/** Adds trace headers (`traceparent`, maybe `tracestate`) to a request's headers. */
export type TraceInjector = (headers: Record<string, string>) => void;

/** A W3C `traceparent` value: version, 32-hex trace ID, 16-hex parent ID, flags. */
export const TRACEPARENT_PATTERN = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/u;

/**
 * The optional peer dependency, named through a variable so bundlers leave
 * it alone (a browser build without it must not fail) and it is loaded only
 * where it resolves.
 */
const OPTIONAL_API = "@opentelemetry/api";

/** The part of `@opentelemetry/api` used here. */
interface OpenTelemetryApi {
  context: { active(): unknown };
  propagation: { inject(context: unknown, carrier: Record<string, string>): void };
}

let loading: Promise<TraceInjector | undefined> | undefined;

/**
 * The injector of `@opentelemetry/api` when the application has it: its
 * registered propagator writes the active context's headers (nothing when
 * the application registered none, or has no active span). Undefined when
 * the package cannot be loaded (browsers without it, apps without
 * OpenTelemetry). Loaded once per process.
 */
export function openTelemetryInjector(): Promise<TraceInjector | undefined> {
  loading ??= import(/* @vite-ignore */ /* webpackIgnore: true */ OPTIONAL_API).then(
    (api: OpenTelemetryApi) => (headers: Record<string, string>) =>
      api.propagation.inject(api.context.active(), headers),
    () => undefined,
  );
  return loading;
}
