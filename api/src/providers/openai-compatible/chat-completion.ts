import { z } from "zod";

/**
 * The part of a chat completion (OpenAI's `POST /chat/completions` answer,
 * which compatible servers — Ollama, vLLM, llama.cpp's server — share) the
 * provider reads: the first choice's message content, the token usage and
 * the model that answered.
 * Everything else is allowed and ignored.
 */
export const chatCompletionSchema = z.object({
  model: z.string().nullish(),
  choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }).nullish() })),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative().nullish(),
      completion_tokens: z.number().int().nonnegative().nullish(),
    })
    .nullish(),
});

/** A chat completion as {@link chatCompletionSchema} reads it. */
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;
