import type { Router } from "express";
import { meteredApiRouter } from "../pipeline/metered-api-router.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { completionsEndpoint } from "./completions-endpoint.js";

/**
 * `POST /api/v1/completions` (docs/API.md §4.3): the completions-style endpoint.
 * Every error is the completions error object `{ error: { message, type,
 * param, code: null } }` (docs/API.md §7.3). Served by the request pipeline
 * (pipeline/metered-request.ts).
 */
export function createCompletionsRouter(context: PipelineContext, bodyLimit: number): Router {
  return meteredApiRouter(context, bodyLimit, "/completions", "completions", completionsEndpoint);
}
