import { personifyRequestSchema } from "@persona-reply/shared";
import { Router } from "express";
import { admitRequest } from "../billing/admit-request.js";
import { meteredPersonify } from "../engine/metered-replies.js";
import { jsonEndpoint } from "../http/json-body.js";
import { validateBody } from "../http/validate-body.js";
import type { Services } from "../services.js";

/**
 * `POST /api/v1/personify` (spec §4.2): rewrites `raw` in the persona's
 * voice; `raw` is treated as text, never as instructions. Errors: 400
 * malformed JSON or invalid body, 401, 403 (no personify access), 404 as
 * plain text; 402 (x402 challenge), 429 and 5xx as JSON (spec §7). Billed
 * and rate limited (billing/admit-request.ts, billing/metered-call.ts).
 */
export function createPersonifyRouter(services: Services): Router {
  const router = Router();
  router.post(
    "/personify",
    ...jsonEndpoint("native", services.config.PERSONA_BODY_LIMIT_BYTES),
    async (request, response) => {
      const body = validateBody(personifyRequestSchema, request.body, "invalid_request");
      const admission = await admitRequest(services, request, response, {
        endpoint: "personify",
        personaId: body.personaId,
        param: "personaId",
        requirePersonify: true,
      });
      const payload = await meteredPersonify(services, admission, response, body.raw);
      response.json(payload);
    },
  );
  return router;
}
