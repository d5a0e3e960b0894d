import { z } from "zod";
import { checkFinalUserMessage, messageListSchema } from "./message.js";
import { personaIdSchema } from "./persona-id.js";
import { rateLimitSchema } from "./rate-limits.js";

/**
 * Body of `POST /api/v1/generate` (docs/API.md §4.1). Rules 1–2 (the last message is
 * a non-empty user message) are checked here; unknown fields are ignored.
 */
export const generateRequestSchema = z
  .object({
    personaId: personaIdSchema,
    messages: messageListSchema,
    includeVariations: z.boolean({ error: "must be a boolean" }).optional(),
  })
  .superRefine((request, context) => checkFinalUserMessage(request.messages, context));

/** A validated /generate request. */
export type GenerateRequest = z.output<typeof generateRequestSchema>;
/** A /generate request as a client writes it. */
export type GenerateRequestInput = z.input<typeof generateRequestSchema>;

/** `result` of a /generate response (docs/API.md §2 Reply result). */
export const replyResultSchema = z.object({
  finalReply: z.string(),
  chunks: z.array(z.string()),
  replyChoices: z.array(z.string()).optional(),
});

/** The reply of a /generate call. */
export type ReplyResult = z.infer<typeof replyResultSchema>;

/** Body of a 200 response of `POST /api/v1/generate` (docs/API.md §4.1). */
export const generateResponseSchema = z.object({
  status: z.literal("success"),
  result: replyResultSchema,
  rateLimits: z.array(rateLimitSchema).optional(),
});

/** A /generate response body. */
export type GenerateResponse = z.infer<typeof generateResponseSchema>;
