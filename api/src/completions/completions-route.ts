import { Router } from "express";
import { jsonEndpoint } from "../http/json-body.js";
import { apiCaller } from "../pipeline/authorize.js";
import { serveMetered } from "../pipeline/metered-request.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { completionsEndpoint } from "./completions-endpoint.js";

/**
 * `POST /api/v1/completions` (docs/API.md §4.3): the completions-style endpoint.
 * Every error is the completions error object `{ error: { message, type,
 * param, code: null } }` (docs/API.md §7.3). Served by the request pipeline
 * (pipeline/metered-request.ts).
 */
export function createCompletionsRouter(context: PipelineContext, bodyLimit: number): Router {
  const router = Router();
  router.post("/completions", ...jsonEndpoint("completions", bodyLimit), (request, response) =>
    serveMetered(context, completionsEndpoint, request, response, (incoming) =>
      apiCaller(context, incoming),
    ),
  );
  return router;
}
