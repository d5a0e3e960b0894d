import type { RequestHandler } from "express";
import type { Logger } from "./logger.js";
import { redactUrl } from "./redact-url.js";
import { REQUEST_ID_HEADER, requestContext, requestIdFor } from "./request-context.js";

/**
 * Gives every request its ID and writes one log line when it is answered
 * (request logging kept on and kept cheap). The ID is the
 * client's valid `x-request-id` or a fresh UUID; it goes out in the
 * response's `x-request-id`, is `request.id` for the handlers, and is on
 * every line any module logs while the request is served
 * (logging/request-context.ts). The line carries `req` (`id`, `method`,
 * `url` with credentials redacted), `res.statusCode` and `responseTime` in
 * milliseconds: `request completed`, `request errored` at error level for a
 * 5xx, `request aborted` when the client left before the answer. The shape
 * is pino-http's, written with one call of the process's pino logger and no
 * per-request child logger.
 *
 * @param skip - paths not logged (health checks and scrapes come every few seconds)
 */
export function requestLogging(logger: Logger, skip: (path: string) => boolean): RequestHandler {
  return (request, response, next) => {
    const id = requestIdFor(request);
    response.setHeader(REQUEST_ID_HEADER, id);
    (request as typeof request & { id: string }).id = id;
    const url = request.url;
    if (!skip(url)) {
      const started = performance.now();
      const method = request.method;
      response.once("close", () => {
        const statusCode = response.statusCode;
        const fields = {
          req: { id, method, url: redactUrl(url) },
          res: { statusCode },
          responseTime: Math.round(performance.now() - started),
        };
        if (!response.writableFinished) logger.info(fields, "request aborted");
        else if (statusCode >= 500) logger.error(fields, "request errored");
        else logger.info(fields, "request completed");
      });
    }
    requestContext.run({ requestId: id }, next);
  };
}
