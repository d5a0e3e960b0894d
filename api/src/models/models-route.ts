import type { Model, ModelList } from "@persona-reply/shared";
import { type RequestHandler, Router } from "express";
import { authenticate } from "../auth/authenticate.js";
import { authorizePersona, requireActiveOwner } from "../auth/authorize-persona.js";
import { setErrorStyle } from "../http/error-style.js";
import { ServiceError } from "../http/service-error.js";
import type { Persona } from "../personas/persona.js";
import type { Services } from "../services.js";

/** A persona as a model object of the completions dialect. */
export function modelOf(persona: Persona): Model {
  return {
    id: persona.id,
    object: "model",
    created: Math.floor(Date.parse(persona.createdAt) / 1000),
    owned_by: persona.accountId,
  };
}

const completionsErrors: RequestHandler = (_request, response, next) => {
  setErrorStyle(response, "completions");
  next();
};

const onlyGet: RequestHandler = () => {
  throw new ServiceError("method_not_allowed", "this path accepts GET only", {
    headers: { Allow: "GET, HEAD" },
  });
};

/**
 * `GET /api/v1/models` and `GET /api/v1/models/{id}` (not in the spec; see
 * api/README.md "Gaps filled"): the personas the key's account may use, in
 * the completions dialect's list and model format, so clients that list
 * models before anything else (the official `openai` client's
 * `models.list()` and `models.retrieve()`) find the persona IDs they send
 * as `model`. Same authentication and error object as /completions: 401
 * without a valid key, 403 for an account that is not active, 404 for a
 * persona that is not the account's (indistinguishable from a missing one).
 * Not metered, and not counted against the key's rate-limit windows: it only
 * reads what the key already gives access to.
 */
export function createModelsRouter(services: Pick<Services, "keys" | "personas">): Router {
  const router = Router();
  router.get("/models", completionsErrors, async (request, response) => {
    const owner = await authenticate(request, services.keys);
    requireActiveOwner(owner);
    const personas = await services.personas.list(owner.accountId);
    const body: ModelList = { object: "list", data: personas.map(modelOf) };
    response.json(body);
  });
  router.get("/models/:id", completionsErrors, async (request, response) => {
    const owner = await authenticate(request, services.keys);
    const persona = await authorizePersona(
      owner,
      String(request.params.id),
      services.personas,
      "model",
    );
    response.json(modelOf(persona));
  });
  router.all("/models", completionsErrors, onlyGet);
  router.all("/models/:id", completionsErrors, onlyGet);
  return router;
}
