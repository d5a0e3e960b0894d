import { randomBytes } from "node:crypto";
import {
  type CompletionResponse,
  completionRequestSchema,
  contentText,
  type Message,
} from "@persona-reply/shared";
import { Router } from "express";
import { admitRequest } from "../billing/admit-request.js";
import { runMetered } from "../billing/metered-call.js";
import { replyPromptOf } from "../billing/prompt-of.js";
import { chunkText } from "../engine/chunk.js";
import { jsonEndpoint } from "../http/json-body.js";
import { clientGoneSignal, validateBody } from "../http/validate-body.js";
import type { Services } from "../services.js";
import { applyEcho, applyStop } from "./completion-text.js";

/**
 * `POST /api/v1/completions` (spec §4.3): the completions-style endpoint.
 * The persona ID is the `model`; `prompt` (a string or one-string array) or
 * `messages`; `n` choices; output normalized, then `stop` applied, then the
 * prompt prepended for `echo`. No `usage`. Every error is the completions
 * error object `{ error: { message, type, param, code: null } }` (spec §7.3).
 */
export function createCompletionsRouter(services: Services): Router {
  const router = Router();
  router.post(
    "/completions",
    ...jsonEndpoint("completions", services.config.PERSONA_BODY_LIMIT_BYTES),
    async (request, response) => {
      const body = validateBody(completionRequestSchema, request.body, "invalid_request");
      const admission = await admitRequest(services, request, response, {
        endpoint: "completions",
        personaId: body.model,
        param: "model",
      });
      const persona = admission.persona;
      let messages: Message[];
      let prompt: string;
      // A null `prompt` or `messages` counts as absent (the schema let exactly one through).
      if (body.messages !== undefined && body.messages !== null) {
        messages = body.messages;
        const last = messages[messages.length - 1];
        prompt = last === undefined ? "" : contentText(last.content);
      } else {
        prompt = (typeof body.prompt === "string" ? body.prompt : body.prompt?.[0]) ?? "";
        messages = [{ role: "user", content: prompt }];
      }
      const candidates = body.n ?? 1;
      const output = await runMetered(services, admission, response, {
        candidates,
        prompt: () => replyPromptOf(persona, messages),
        run: () => services.engine.reply(persona, messages, candidates, clientGoneSignal(response)),
      });
      const payload: CompletionResponse = {
        id: `cmpl-${randomBytes(12).toString("hex")}`,
        object: "text_completion",
        created: Math.floor(Date.now() / 1000),
        model: persona.id,
        choices: output.texts.map((normalized, index) => {
          const stopped = applyStop(normalized, body.stop);
          const text = body.echo === true ? applyEcho(prompt, stopped) : stopped;
          return { text, index, logprobs: null, finish_reason: "stop", chunks: chunkText(text) };
        }),
      };
      response.json(payload);
    },
  );
  return router;
}
