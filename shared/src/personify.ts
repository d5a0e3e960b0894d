import { z } from "zod";
import { LIMITS } from "./constants.js";
import { personaIdSchema } from "./persona-id.js";

/** Body of `POST /api/v1/personify` (docs/API.md §4.2): `raw` is non-empty text to rewrite. */
export const personifyRequestSchema = z.object({
  personaId: personaIdSchema,
  raw: z
    .string({ error: "must be a string" })
    .refine((raw) => raw.trim() !== "", { error: "must be non-empty text" })
    .refine((raw) => raw.length <= LIMITS.maxTextLength, {
      error: `must be at most ${LIMITS.maxTextLength} characters`,
    }),
});

/** A validated /personify request. */
export type PersonifyRequest = z.output<typeof personifyRequestSchema>;

/** Body of a 200 response of `POST /api/v1/personify` (docs/API.md §4.2). */
export const personifyResponseSchema = z.object({
  personified: z.string(),
  chunks: z.array(z.string()),
});

/** A /personify response body. */
export type PersonifyResponse = z.infer<typeof personifyResponseSchema>;
