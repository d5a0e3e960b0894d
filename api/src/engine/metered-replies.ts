import type { Message, PersonifyResponse, ReplyResult } from "@persona-reply/shared";
import type { Response } from "express";
import type { Admission } from "../billing/admit-request.js";
import { runMetered } from "../billing/metered-call.js";
import { personifyPromptOf, replyPromptOf } from "../billing/prompt-of.js";
import { clientGoneSignal } from "../http/validate-body.js";
import type { Services } from "../services.js";
import { chunkText } from "./chunk.js";
import { selectFinalReply, VARIATION_COUNT } from "./persona-engine.js";

/**
 * Replies to an admitted /generate request under billing (spec §4.1): one
 * candidate, or {@link VARIATION_COUNT} with `includeVariations`, of which
 * one is selected as `finalReply` and all distinct ones are `replyChoices`.
 * Shared by `POST /api/v1/generate` and the playground's chat.
 *
 * @throws the engine's or billing's {@link ServiceError}s (429, 402, 5xx)
 */
export async function meteredReply(
  services: Services,
  admission: Admission,
  response: Response,
  messages: readonly Message[],
  includeVariations: boolean,
): Promise<ReplyResult> {
  const persona = admission.persona;
  const candidates = includeVariations ? VARIATION_COUNT : 1;
  const output = await runMetered(services, admission, response, {
    candidates,
    prompt: () => replyPromptOf(persona, messages),
    run: () => services.engine.reply(persona, messages, candidates, clientGoneSignal(response)),
  });
  const finalReply = selectFinalReply(output.texts);
  const result: ReplyResult = { finalReply, chunks: chunkText(finalReply) };
  if (includeVariations) result.replyChoices = [...new Set(output.texts)];
  return result;
}

/**
 * Rewrites `raw` for an admitted /personify request under billing (spec
 * §4.2). Shared by `POST /api/v1/personify` and the playground.
 *
 * @throws the engine's or billing's {@link ServiceError}s (429, 402, 5xx)
 */
export async function meteredPersonify(
  services: Services,
  admission: Admission,
  response: Response,
  raw: string,
): Promise<PersonifyResponse> {
  const persona = admission.persona;
  const output = await runMetered(services, admission, response, {
    candidates: 1,
    prompt: () => personifyPromptOf(persona, raw),
    run: () => services.engine.personify(persona, raw, clientGoneSignal(response)),
  });
  const personified = output.texts[0] ?? "";
  return { personified, chunks: chunkText(personified) };
}
