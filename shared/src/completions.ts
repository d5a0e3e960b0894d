import { z } from "zod";
import { LIMITS } from "./constants.js";
import { checkFinalUserMessage, messageListSchema } from "./message.js";

const present = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * Body of `POST /api/v1/completions` (docs/API.md §4.3). Enforces rules 1–6:
 * exactly one of `prompt` / `messages` (null counts as absent, as for `n`,
 * `echo` and `stop`: the official SDKs type `prompt` as required but
 * nullable, so a messages user sends `prompt: null`); a final non-empty user message;
 * `stream: true`, `max_tokens`, `logprobs` and tool calling rejected; the
 * "accepted but ignored" parameters (temperature, top_p, presence_penalty,
 * frequency_penalty, best_of, seed, suffix, user) and unknown fields pass
 * without effect. The first issue's path names the `param` of the error body.
 */
export const completionRequestSchema = z
  .object({
    model: z
      .string({ error: "you must provide a model parameter (the persona ID)" })
      .uuid({ error: "model must be a persona ID (a UUID)" }),
    messages: messageListSchema.nullish(),
    prompt: z
      .union(
        [
          z.string(),
          z
            .array(z.string({ error: "must be a string" }), {
              error: "must be a string or an array of exactly one string",
            })
            .length(1, { error: "must be a string or an array of exactly one string" }),
        ],
        { error: "must be a string or an array of exactly one string" },
      )
      .nullish(),
    n: z
      .number({ error: "must be an integer from 1 to 5" })
      .int({ error: "must be an integer from 1 to 5" })
      .min(LIMITS.minChoices, { error: "must be an integer from 1 to 5" })
      .max(LIMITS.maxChoices, { error: "must be an integer from 1 to 5 (capped at 5)" })
      .nullish(),
    echo: z.boolean({ error: "must be a boolean" }).nullish(),
    stop: z
      .union(
        [
          z.string().max(LIMITS.maxStopLength),
          z.array(z.string().max(LIMITS.maxStopLength)).max(LIMITS.maxStopSequences, {
            error: `must hold at most ${LIMITS.maxStopSequences} stop sequences`,
          }),
        ],
        {
          error: `must be a string or an array of at most ${LIMITS.maxStopSequences} strings of up to ${LIMITS.maxStopLength} characters`,
        },
      )
      .nullish(),
    stream: z.unknown().optional(),
    max_tokens: z.unknown().optional(),
    logprobs: z.unknown().optional(),
    tools: z.unknown().optional(),
    tool_choice: z.unknown().optional(),
    functions: z.unknown().optional(),
    function_call: z.unknown().optional(),
  })
  .superRefine((request, context) => {
    const reject = (param: string, message: string) =>
      context.addIssue({ code: "custom", path: [param], message });
    if (request.stream !== undefined && request.stream !== null && request.stream !== false) {
      reject("stream", "streaming is not supported; omit stream or set it to false");
    }
    if (present(request.max_tokens)) {
      reject("max_tokens", "max_tokens is not supported; the persona decides the reply length");
    }
    if (present(request.logprobs) && request.logprobs !== false) {
      reject("logprobs", "logprobs is not supported");
    }
    for (const param of ["tools", "tool_choice", "functions", "function_call"] as const) {
      if (present(request[param])) reject(param, "tool calling is not supported");
    }
    const prompt = request.prompt ?? undefined;
    const messages = request.messages ?? undefined;
    if (prompt !== undefined && messages !== undefined) {
      reject("prompt", "send either prompt or messages, not both");
    } else if (prompt === undefined && messages === undefined) {
      reject("prompt", "send either prompt or messages");
    } else if (prompt !== undefined) {
      const text = typeof prompt === "string" ? prompt : prompt[0];
      if (text === undefined || text.trim() === "") reject("prompt", "prompt must be non-empty");
      else if (text.length > LIMITS.maxTextLength) {
        reject("prompt", `prompt must be at most ${LIMITS.maxTextLength} characters`);
      }
    } else if (messages !== undefined) {
      checkFinalUserMessage(messages, context);
    }
  });

/** A validated /completions request. */
export type CompletionRequest = z.output<typeof completionRequestSchema>;
/** A /completions request as a client writes it. */
export type CompletionRequestInput = z.input<typeof completionRequestSchema>;

/** One entry of `choices` (docs/API.md §4.3 response). */
export const completionChoiceSchema = z.object({
  text: z.string(),
  index: z.number().int().nonnegative(),
  logprobs: z.null(),
  finish_reason: z.literal("stop"),
  chunks: z.array(z.string()),
});

/** One completion choice. */
export type CompletionChoice = z.infer<typeof completionChoiceSchema>;

/** Body of a 200 response of `POST /api/v1/completions` (docs/API.md §4.3); it has no `usage`. */
export const completionResponseSchema = z.object({
  id: z.string().startsWith("cmpl-"),
  object: z.literal("text_completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(completionChoiceSchema),
});

/** A /completions response body. */
export type CompletionResponse = z.infer<typeof completionResponseSchema>;
