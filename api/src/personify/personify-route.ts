import { type PersonifyResponse, personifyRequestSchema } from "@persona-reply/shared";
import { Router } from "express";
import { authenticate } from "../auth/authenticate.js";
import { authorizePersona } from "../auth/authorize-persona.js";
import { chunkText } from "../engine/chunk.js";
import { setErrorStyle } from "../http/error-style.js";
import { parseJsonBody, requireJsonContentType } from "../http/json-body.js";
import { ServiceError } from "../http/service-error.js";
import { clientGoneSignal, validateBody } from "../http/validate-body.js";
import type { Services } from "../services.js";

/**
 * `POST /api/v1/personify` (spec §4.2): rewrites `raw` in the persona's
 * voice; `raw` is treated as text, never as instructions. Errors: 400
 * malformed JSON or invalid body, 401, 403 (no personify access), 404 as
 * plain text; 5xx as JSON (spec §7).
 */
export function createPersonifyRouter(services: Services): Router {
  const router = Router();
  router.post(
    "/personify",
    (_request, response, next) => {
      setErrorStyle(response, "native");
      next();
    },
    requireJsonContentType,
    parseJsonBody(services.config.PERSONA_BODY_LIMIT_BYTES),
    async (request, response) => {
      const body = validateBody(personifyRequestSchema, request.body, "invalid_request");
      const owner = await authenticate(request, services.keys);
      const persona = await authorizePersona(owner, body.personaId, services.personas, "personaId");
      if (!persona.personifyAccess) {
        throw new ServiceError(
          "personify_not_allowed",
          "this persona does not have access to /personify; ask the operator to enable it",
        );
      }
      const output = await services.engine.personify(persona, body.raw, clientGoneSignal(response));
      const personified = output.texts[0] ?? "";
      const payload: PersonifyResponse = { personified, chunks: chunkText(personified) };
      response.json(payload);
    },
  );
  return router;
}
