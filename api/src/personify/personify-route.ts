import { Router } from "express";
import { jsonEndpoint } from "../http/json-body.js";
import { apiCaller } from "../pipeline/authorize.js";
import { serveMetered } from "../pipeline/metered-request.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { personifyEndpoint } from "./personify-endpoint.js";

/**
 * `POST /api/v1/personify` (docs/API.md §4.2): rewrites `raw` in the persona's
 * voice; `raw` is treated as text, never as instructions. Errors: 400
 * malformed JSON or invalid body, 401, 403 (no personify access), 404 as
 * plain text; 402 (x402 challenge), 429, 503 and 5xx as JSON (docs/API.md §7).
 * Served by the request pipeline (pipeline/metered-request.ts).
 */
export function createPersonifyRouter(context: PipelineContext, bodyLimit: number): Router {
  const router = Router();
  router.post("/personify", ...jsonEndpoint("native", bodyLimit), (request, response) =>
    serveMetered(context, personifyEndpoint, request, response, (incoming) =>
      apiCaller(context, incoming),
    ),
  );
  return router;
}
