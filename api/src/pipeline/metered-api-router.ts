import { Router } from "express";
import type { ErrorStyle } from "../http/error-style.js";
import { jsonEndpoint } from "../http/json-body.js";
import { apiCaller } from "./authorize.js";
import { type MeteredEndpoint, serveMetered } from "./metered-request.js";
import type { PipelineContext } from "./pipeline-context.js";

/**
 * The router of one metered API endpoint (`POST /api/v1/generate`,
 * `/personify`, `/completions`): a JSON body in the endpoint's error style
 * up to `bodyLimit` bytes (http/json-body.ts), the API key's account as the
 * caller, then the request pipeline ({@link serveMetered}).
 *
 * @param path - the endpoint's path below the API prefix, e.g. `/generate`
 */
export function meteredApiRouter<Body, Payload>(
  context: PipelineContext,
  bodyLimit: number,
  path: string,
  style: ErrorStyle,
  endpoint: MeteredEndpoint<Body, Payload>,
): Router {
  const router = Router();
  router.post(path, ...jsonEndpoint(style, bodyLimit), (request, response) =>
    serveMetered(context, endpoint, request, response, (incoming) => apiCaller(context, incoming)),
  );
  return router;
}
