import { randomBytes } from "node:crypto";
import {
  type CompletionRequest,
  type CompletionResponse,
  completionRequestSchema,
  contentText,
  type Message,
} from "@persona-reply/shared";
import { chunkText } from "../engine/chunk.js";
import type { MeteredEndpoint } from "../pipeline/metered-request.js";
import { applyEcho, applyStop } from "./completion-text.js";

/** The history a completions request replies to, and the prompt `echo` prepends. */
function conversationOf(body: CompletionRequest): { messages: Message[]; prompt: string } {
  // A null `prompt` or `messages` counts as absent (the schema let exactly one through).
  if (body.messages !== undefined && body.messages !== null) {
    const last = body.messages[body.messages.length - 1];
    return { messages: body.messages, prompt: last === undefined ? "" : contentText(last.content) };
  }
  const prompt = (typeof body.prompt === "string" ? body.prompt : body.prompt?.[0]) ?? "";
  return { messages: [{ role: "user", content: prompt }], prompt };
}

/**
 * `POST /api/v1/completions` in the request pipeline (docs/API.md §4.3): the
 * persona ID is the `model`; `prompt` (a string or one-string array) or
 * `messages`; `n` choices; output normalized, then `stop` applied, then
 * the prompt prepended for `echo`. No `usage`.
 */
export const completionsEndpoint: MeteredEndpoint<CompletionRequest, CompletionResponse> = {
  name: "completions",
  schema: completionRequestSchema,
  invalidBody: "invalid_request",
  personaField: "model",
  personaIdOf: (body) => body.model,
  requiresPersonify: false,
  task: (body) => ({
    task: "reply",
    messages: conversationOf(body).messages,
    candidates: body.n ?? 1,
  }),
  present(body, output) {
    const { prompt } = conversationOf(body);
    return {
      id: `cmpl-${randomBytes(12).toString("hex")}`,
      object: "text_completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: output.texts.map((normalized, index) => {
        const stopped = applyStop(normalized, body.stop);
        const text = body.echo === true ? applyEcho(prompt, stopped) : stopped;
        return { text, index, logprobs: null, finish_reason: "stop", chunks: chunkText(text) };
      }),
    };
  },
};
