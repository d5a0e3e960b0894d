import { type GenerateResponse, generateRequestSchema } from "@persona-reply/shared";
import { Router } from "express";
import { admitRequest } from "../billing/admit-request.js";
import { meteredReply } from "../engine/metered-replies.js";
import { jsonEndpoint } from "../http/json-body.js";
import { validateBody } from "../http/validate-body.js";
import type { Services } from "../services.js";

/**
 * `POST /api/v1/generate` (spec §4.1): replies to a message history in the
 * persona's voice, with alternative replies when `includeVariations` is true.
 * Errors: 400 malformed JSON, 422 invalid body, 401, 403, 404 as plain text;
 * 402 (x402 challenge), 429 and 5xx as JSON (spec §7). Billed and rate
 * limited (billing/admit-request.ts, billing/metered-call.ts).
 */
export function createGenerateRouter(services: Services): Router {
  const router = Router();
  router.post(
    "/generate",
    ...jsonEndpoint("native", services.config.PERSONA_BODY_LIMIT_BYTES),
    async (request, response) => {
      const body = validateBody(generateRequestSchema, request.body, "unprocessable_request");
      const admission = await admitRequest(services, request, response, {
        endpoint: "generate",
        personaId: body.personaId,
        param: "personaId",
      });
      const result = await meteredReply(
        services,
        admission,
        response,
        body.messages,
        body.includeVariations === true,
      );
      const payload: GenerateResponse = { status: "success", result };
      // Spec §4.1: top-level, on API-key requests (DESIGN.md element shape).
      if (admission.rateLimits !== undefined) payload.rateLimits = admission.rateLimits;
      response.json(payload);
    },
  );
  return router;
}
