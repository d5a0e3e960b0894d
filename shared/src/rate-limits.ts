import { z } from "zod";

/**
 * One element of the top-level `rateLimits` array (docs/API.md §4.1 leaves its
 * fields open; this service fixes them): a window, its request limit, the
 * requests left in it, and when it resets in Unix seconds.
 */
export const rateLimitSchema = z.object({
  window: z.enum(["minute", "hour", "day"]),
  limit: z.number().int().nonnegative(),
  remaining: z.number().int().nonnegative(),
  reset: z.number().int().nonnegative(),
});

/** One rate-limit window's state, as sent in `rateLimits`. */
export type RateLimit = z.infer<typeof rateLimitSchema>;
