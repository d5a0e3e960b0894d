import { z } from "zod";

/**
 * One model of `GET /api/v1/models`, and the body of
 * `GET /api/v1/models/{id}`: a persona the key's account may use, in the
 * completions dialect's model format. `id` is the persona ID (what
 * /completions takes as `model`), `created` the persona's creation time in
 * Unix seconds, `owned_by` the ID of the account that owns it.
 */
export const modelSchema = z.object({
  id: z.string(),
  object: z.literal("model"),
  created: z.number().int(),
  owned_by: z.string(),
});

/** A model object (a persona). */
export type Model = z.infer<typeof modelSchema>;

/** Body of `GET /api/v1/models`: `{ object: "list", data: [model, …] }`, oldest persona first. */
export const modelListSchema = z.object({
  object: z.literal("list"),
  data: z.array(modelSchema),
});

/** A models list body. */
export type ModelList = z.infer<typeof modelListSchema>;
