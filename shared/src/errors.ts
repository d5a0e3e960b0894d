import { z } from "zod";

/**
 * Error body of /completions (docs/API.md §7 format 3):
 * `{ error: { message, type, param, code: null } }`. `code` is always null;
 * `type` tells errors apart (the two 429s: `rate_limit_error` and
 * `insufficient_quota`).
 */
export const completionErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.null(),
  }),
});

/** A /completions error body. */
export type CompletionErrorBody = z.infer<typeof completionErrorBodySchema>;

/**
 * JSON error body of /generate and /personify for quota and server errors.
 * Spec §7 format 6 leaves the shape open ("not shown"); we fill the gap with
 * `{ error: { type, message } }` (shared/README.md). Validation and
 * authentication errors on those endpoints are plain text (docs/API.md §7 format 1).
 */
export const jsonErrorBodySchema = z.object({
  error: z.object({
    type: z.string(),
    message: z.string(),
  }),
});

/** A JSON error body of /generate or /personify. */
export type JsonErrorBody = z.infer<typeof jsonErrorBodySchema>;

/** Where a validation issue points and what it says. */
export interface ValidationProblem {
  /** The offending field as a path such as `messages[2].role`, or null for the whole body. */
  param: string | null;
  /** A sentence naming the field and the problem, e.g. `messages[2].role: must be one of …`. */
  message: string;
}

/** Renders a zod issue path as `messages[2].content`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let result = "";
  for (const segment of path) {
    if (typeof segment === "number") result += `[${segment}]`;
    else result += result === "" ? String(segment) : `.${String(segment)}`;
  }
  return result;
}

/**
 * Describes the first issue of a zod error as a {@link ValidationProblem}.
 * Missing required fields read "is required".
 *
 * @example
 * describeValidationError(result.error) // { param: "messages", message: "messages: is required" }
 */
export function describeValidationError(error: z.ZodError): ValidationProblem {
  const issue = error.issues[0];
  if (issue === undefined) return { param: null, message: "invalid request body" };
  const param = issue.path.length > 0 ? formatPath(issue.path) : null;
  // `input` is on the issue when parsed with `{ reportInput: true }` (see parseWith).
  const missing = issue.code === "invalid_type" && "input" in issue && issue.input === undefined;
  const text = missing ? "is required" : issue.message;
  return { param, message: param === null ? text : `${param}: ${text}` };
}

/** Result of {@link parseWith}: the parsed value, or the first problem. */
export type ParseOutcome<T> = { ok: true; value: T } | { ok: false; problem: ValidationProblem };

/**
 * Parses `input` with `schema` and reports the first issue as a
 * {@link ValidationProblem}; never throws.
 *
 * @example
 * const outcome = parseWith(generateRequestSchema, body);
 * if (!outcome.ok) console.error(outcome.problem.message);
 */
export function parseWith<T>(schema: z.ZodType<T>, input: unknown): ParseOutcome<T> {
  const result = schema.safeParse(input, { reportInput: true });
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problem: describeValidationError(result.error) };
}
