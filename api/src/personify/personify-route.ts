import type { Router } from "express";
import { meteredApiRouter } from "../pipeline/metered-api-router.js";
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
  return meteredApiRouter(context, bodyLimit, "/personify", "native", personifyEndpoint);
}
