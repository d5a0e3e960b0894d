import {
  type GenerateResponse,
  generateRequestSchema,
  type ReplyResult,
} from "@persona-reply/shared";
import { Router } from "express";
import { authenticate } from "../auth/authenticate.js";
import { authorizePersona } from "../auth/authorize-persona.js";
import { chunkText } from "../engine/chunk.js";
import { selectFinalReply, VARIATION_COUNT } from "../engine/persona-engine.js";
import { setErrorStyle } from "../http/error-style.js";
import { parseJsonBody, requireJsonContentType } from "../http/json-body.js";
import { clientGoneSignal, validateBody } from "../http/validate-body.js";
import type { Services } from "../services.js";

/**
 * `POST /api/v1/generate` (spec §4.1): replies to a message history in the
 * persona's voice, with alternative replies when `includeVariations` is true.
 * Errors: 400 malformed JSON, 422 invalid body, 401, 403, 404 as plain text;
 * 5xx as JSON (spec §7).
 */
export function createGenerateRouter(services: Services): Router {
  const router = Router();
  router.post(
    "/generate",
    (_request, response, next) => {
      setErrorStyle(response, "native");
      next();
    },
    requireJsonContentType,
    parseJsonBody(services.config.PERSONA_BODY_LIMIT_BYTES),
    async (request, response) => {
      const body = validateBody(generateRequestSchema, request.body, "unprocessable_request");
      const owner = await authenticate(request, services.keys);
      const persona = await authorizePersona(owner, body.personaId, services.personas, "personaId");
      const variations = body.includeVariations === true;
      const output = await services.engine.reply(
        persona,
        body.messages,
        variations ? VARIATION_COUNT : 1,
        clientGoneSignal(response),
      );
      const finalReply = selectFinalReply(output.texts);
      const result: ReplyResult = { finalReply, chunks: chunkText(finalReply) };
      if (variations) result.replyChoices = [...new Set(output.texts)];
      const payload: GenerateResponse = { status: "success", result };
      response.json(payload);
    },
  );
  return router;
}
