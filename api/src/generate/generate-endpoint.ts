import {
  type GenerateRequest,
  type GenerateResponse,
  generateRequestSchema,
  type ReplyResult,
} from "@persona-reply/shared";
import { chunkText } from "../engine/chunk.js";
import { selectFinalReply, VARIATION_COUNT } from "../engine/persona-engine.js";
import type { MeteredEndpoint } from "../pipeline/metered-request.js";

/**
 * `POST /api/v1/generate` in the request pipeline (docs/API.md §4.1): one
 * candidate, or {@link VARIATION_COUNT} with `includeVariations`, of which
 * one is selected as `finalReply` and the distinct ones are `replyChoices`;
 * `rateLimits` at the top level on API-key requests. An invalid body is
 * 422. Shared by the API route and the playground's chat.
 */
export const generateEndpoint: MeteredEndpoint<GenerateRequest, GenerateResponse> = {
  name: "generate",
  schema: generateRequestSchema,
  invalidBody: "unprocessable_request",
  personaField: "personaId",
  personaIdOf: (body) => body.personaId,
  requiresPersonify: false,
  task: (body) => ({
    task: "reply",
    messages: body.messages,
    candidates: body.includeVariations === true ? VARIATION_COUNT : 1,
  }),
  present(body, output, rateLimits) {
    const finalReply = selectFinalReply(output.texts);
    const result: ReplyResult = { finalReply, chunks: chunkText(finalReply) };
    if (body.includeVariations === true) result.replyChoices = [...new Set(output.texts)];
    const payload: GenerateResponse = { status: "success", result };
    if (rateLimits !== undefined) payload.rateLimits = rateLimits;
    return payload;
  },
};
