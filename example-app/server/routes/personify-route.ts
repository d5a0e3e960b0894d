import type { RequestHandler } from "express";
import type { PersonifyResponse } from "../route-types.js";
import { parseBody, personifyRequestSchema } from "../schemas.js";
import type { ResolveTarget } from "../service-access.js";
import { abortOnClose } from "./abort-on-close.js";

/**
 * `POST /api/personify` `{ raw, personaId? }` → `{ personified, chunks, model }`
 * (docs/API.md §4.6): the native `/api/v1/personify` endpoint through the client
 * library `@persona-reply/client`.
 *
 * @example
 * // what the route does, in your own product:
 * const client = new PersonaClient({ apiKey, personaId, baseUrl: origin });
 * const { personified, chunks } = await client.personify({ raw: "We meet at noon." });
 */
export function personifyRoute(resolveTarget: ResolveTarget): RequestHandler {
  return async (request, response) => {
    const body = parseBody(personifyRequestSchema, request.body);
    const target = resolveTarget(body.personaId);
    const result = await target
      .persona()
      .personify({ raw: body.raw }, { signal: abortOnClose(response) });
    const answer: PersonifyResponse = {
      personified: result.personified,
      chunks: result.chunks,
      model: target.personaId,
    };
    response.json(answer);
  };
}
