import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from "@opentelemetry/semantic-conventions";
import type { Express, RequestHandler } from "express";
import { onSocketGone } from "../http/socket-gone.js";
import { createRouteLabeller, UNMATCHED_ROUTE } from "../metrics/metrics-middleware.js";
import type { Tracing } from "./tracing.js";

/** The methods HTTP semantic conventions name; any other is recorded as `_OTHER`. */
const KNOWN_METHODS = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE",
]);

/**
 * One SERVER span per request, following the HTTP semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/http/http-spans/): named
 * `{method} {route template}` (e.g. `POST /api/v1/generate`), continuing the
 * trace of an incoming W3C `traceparent`, and active while the request is
 * served so the pipeline's spans are its children. Attributes:
 * `http.request.method`, `http.route`, `http.response.status_code`,
 * `url.path`, `url.scheme`, `server.address`, `server.port`,
 * `client.address`, `user_agent.original`, `network.protocol.version`; a
 * 5xx, or a client gone before the answer, sets the error status and
 * `error.type`. No query string, header value or body is recorded.
 *
 * @param app - the application whose route templates name the spans
 */
export function createRequestSpans(tracing: Tracing, app: Express): RequestHandler {
  const routeOf = createRouteLabeller(app);
  return (request, response, next) => {
    const method = KNOWN_METHODS.has(request.method) ? request.method : "_OTHER";
    const pathname = request.originalUrl.split("?")[0] ?? "";
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const host = request.headers.host ?? "";
    const port = /:(\d+)$/u.exec(host)?.[1];
    const span = tracing.tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          [ATTR_URL_PATH]: pathname,
          [ATTR_URL_SCHEME]: request.protocol,
          [ATTR_SERVER_ADDRESS]: host.replace(/:\d+$/u, ""),
          ...(port === undefined ? {} : { [ATTR_SERVER_PORT]: Number(port) }),
          ...(request.socket.remoteAddress === undefined
            ? {}
            : { [ATTR_CLIENT_ADDRESS]: request.socket.remoteAddress }),
          ...(request.headers["user-agent"] === undefined
            ? {}
            : { [ATTR_USER_AGENT_ORIGINAL]: request.headers["user-agent"] }),
          [ATTR_NETWORK_PROTOCOL_VERSION]: request.httpVersion,
        },
      },
      parent,
    );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      cancelSocketWatch();
      const route = routeOf(request.method, pathname);
      if (route !== UNMATCHED_ROUTE) {
        span.updateName(`${method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
      if (response.headersSent) {
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
        if (response.statusCode >= 500) {
          span.setAttribute(ATTR_ERROR_TYPE, String(response.statusCode));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      } else {
        span.setAttribute(ATTR_ERROR_TYPE, "aborted");
        span.setStatus({ code: SpanStatusCode.ERROR, message: "the client went away" });
      }
      span.end();
    };
    response.once("close", end);
    const cancelSocketWatch = onSocketGone(request.socket, end);
    context.with(trace.setSpan(parent, span), next);
  };
}
