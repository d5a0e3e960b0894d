import { startLoopbackServer } from "./loopback-server.js";

/** An OTLP attribute value in the JSON encoding (only the kinds the service sends). */
interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}

/** One span as an OTLP/HTTP JSON export carries it, attributes flattened to a record. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** The `service.name` of the resource that sent it. */
  serviceName: string;
}

/**
 * An OTLP/HTTP trace receiver on a loopback port, speaking the real
 * protocol: `POST /v1/traces` with an `ExportTraceServiceRequest` in the
 * JSON encoding (what `@opentelemetry/exporter-trace-otlp-http` sends),
 * answered 200 `{}`. Other paths get 404.
 */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  /** Every span received so far, in arrival order. */
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: Array<{ key: string; value: AnyValue }>;
        status?: { code?: number };
      }>;
    }>;
  }>;
}

function plain(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

function record(attributes: Array<{ key: string; value: AnyValue }> = []) {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, plain(value)]));
}

/** Starts an {@link OtlpReceiver}. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = await startLoopbackServer((request, body, response) => {
    if (request.method !== "POST" || request.url !== "/v1/traces") {
      response.writeHead(404).end();
      return;
    }
    if (!String(request.headers["content-type"]).startsWith("application/json")) {
      response.writeHead(415).end();
      return;
    }
    const exported = JSON.parse(body) as ExportRequest;
    for (const resourceSpans of exported.resourceSpans ?? []) {
      const serviceName = String(record(resourceSpans.resource?.attributes)["service.name"]);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? "",
            name: span.name,
            kind: span.kind,
            attributes: record(span.attributes),
            statusCode: span.status?.code ?? 0,
            serviceName,
          });
        }
      }
    }
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  return { endpoint: server.origin, spans, close: server.close };
}
