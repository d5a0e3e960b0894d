import {
  type PersonifyRequest,
  type PersonifyResponse,
  personifyRequestSchema,
} from "@persona-reply/shared";
import { chunkText } from "../engine/chunk.js";
import type { MeteredEndpoint } from "../pipeline/metered-request.js";

/**
 * `POST /api/v1/personify` in the request pipeline (docs/API.md §4.2): `raw`
 * rewritten in the voice of a persona with /personify access; the text is
 * data, never instructions. An invalid body is 400. Shared by the API
 * route and the playground.
 */
export const personifyEndpoint: MeteredEndpoint<PersonifyRequest, PersonifyResponse> = {
  name: "personify",
  schema: personifyRequestSchema,
  invalidBody: "invalid_request",
  personaField: "personaId",
  personaIdOf: (body) => body.personaId,
  requiresPersonify: true,
  task: (body) => ({ task: "personify", source: body.raw }),
  present(_body, output) {
    const personified = output.texts[0] ?? "";
    return { personified, chunks: chunkText(personified) };
  },
};
