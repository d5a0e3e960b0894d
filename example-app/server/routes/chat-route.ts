import type { RequestHandler } from "express";
import type { Completion } from "openai/resources/completions";
import { ExampleAppError } from "../errors.js";
import type { ChatResponse } from "../route-types.js";
import { type ChatMessage, chatRequestSchema, parseBody } from "../schemas.js";
import type { ResolveTarget } from "../service-access.js";
import { abortOnClose } from "./abort-on-close.js";
import { completionChunks } from "./completion-chunks.js";

/**
 * Most messages of a history forwarded to the service. The spec lets the
 * client trim long histories to reduce latency (§8.5); the oldest go first.
 */
export const CHAT_HISTORY_LIMIT = 50;

/**
 * The history sent to the service: at most {@link CHAT_HISTORY_LIMIT}
 * messages, the newest ones. System and developer messages older than
 * that (the conversation's instructions) are kept in front, up to 10, in
 * place of the oldest turns.
 */
export function trimHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  if (messages.length <= CHAT_HISTORY_LIMIT) return [...messages];
  const older = messages.slice(0, -CHAT_HISTORY_LIMIT);
  const context = older
    .filter((message) => message.role === "system" || message.role === "developer")
    .slice(-10);
  return [...context, ...messages.slice(-(CHAT_HISTORY_LIMIT - context.length))];
}

/**
 * `POST /api/chat` `{ messages, personaId? }` → `{ reply, model, chunks }`
 * (docs/API.md §4.6): the conversation so far goes to the completions-style
 * endpoint as `messages` (docs/API.md §4.3), through the official `openai` client.
 * Its typed `completions.create` requires `prompt`, so the request goes
 * through the client's generic `post`, the SDK's documented way to send a
 * body the typed method does not describe; errors and retries are the same.
 */
export function chatRoute(resolveTarget: ResolveTarget): RequestHandler {
  return async (request, response) => {
    const body = parseBody(chatRequestSchema, request.body);
    const target = resolveTarget(body.personaId);
    const completion = await target.completions().post<Completion>("/completions", {
      body: { model: target.personaId, messages: trimHistory(body.messages) },
      signal: abortOnClose(response),
    });
    const choice = completion.choices[0];
    if (choice === undefined) {
      throw new ExampleAppError("provider", 502, "the service returned no completion");
    }
    const answer: ChatResponse = {
      reply: choice.text,
      model: completion.model,
      chunks: completionChunks(choice, choice.text),
    };
    response.json(answer);
  };
}
