import type { Router } from "express";
import { meteredApiRouter } from "../pipeline/metered-api-router.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { generateEndpoint } from "./generate-endpoint.js";

/**
 * `POST /api/v1/generate` (docs/API.md §4.1): replies to a message history in the
 * persona's voice, with alternative replies when `includeVariations` is true.
 * Errors: 400 malformed JSON, 422 invalid body, 401, 403, 404 as plain text;
 * 402 (x402 challenge), 429, 503 and 5xx as JSON (docs/API.md §7). Served by the
 * request pipeline (pipeline/metered-request.ts).
 */
export function createGenerateRouter(context: PipelineContext, bodyLimit: number): Router {
  return meteredApiRouter(context, bodyLimit, "/generate", "native", generateEndpoint);
}
