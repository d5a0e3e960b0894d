import {
  LIMITS,
  personaIdSchema,
  personifyRequestSchema as servicePersonifyRequestSchema,
} from "@persona-reply/shared";
import { z } from "zod";
import { validationError } from "./errors.js";

/** Most characters of one prompt, message or source text (the service's own limit). */
export const MAX_TEXT_LENGTH = LIMITS.maxTextLength;

/** Most messages one chat request may carry (the service's own limit). */
export const MAX_MESSAGES = LIMITS.maxMessages;

/** `personaId`: the service's rule, but optional (the server's configured persona by default). */
const personaIdField = personaIdSchema.optional();

const textField = z
  .string({ error: "must be a string" })
  .refine((text) => text.trim() !== "", { error: "must not be empty" })
  .refine((text) => text.length <= MAX_TEXT_LENGTH, {
    error: `must be at most ${MAX_TEXT_LENGTH} characters`,
  });

/** Body of `POST /api/quickstart` (docs/API.md §4.6): `{ prompt, personaId? }`. */
export const quickstartRequestSchema = z.object({
  prompt: textField,
  personaId: personaIdField,
});

/** A validated quickstart request. */
export type QuickstartRequest = z.output<typeof quickstartRequestSchema>;

/** A text part of message content (docs/API.md §2 Message): `{ type: "text", text }`. */
const textPartSchema = z.object({
  type: z.literal("text", { error: 'must be "text" (only text is supported)' }),
  text: z.string({ error: "must be a string" }),
});

/**
 * The text of message content: the string, or the parts' texts joined with
 * a newline, as the service reads it.
 */
export function contentText(content: string | ReadonlyArray<{ text: string }>): string {
  return typeof content === "string" ? content : content.map((part) => part.text).join("\n");
}

/**
 * One message of a chat history: `{ role, content }` with the service's
 * roles and content (docs/API.md §2 Message): a string, or an array of text parts
 * `[{ type: "text", text }]`, passed on to the service as it is.
 */
export const chatMessageSchema = z.object({
  role: z.enum(["user", "assistant", "system", "developer"], {
    error: "must be one of user, assistant, system, developer",
  }),
  content: z
    .union([z.string(), z.array(textPartSchema)], {
      error: 'must be a string or an array of text parts [{ "type": "text", "text": "…" }]',
    })
    .refine((content) => contentText(content).length <= MAX_TEXT_LENGTH, {
      error: `must be at most ${MAX_TEXT_LENGTH} characters`,
    }),
});

/** A chat message. */
export type ChatMessage = z.output<typeof chatMessageSchema>;

/**
 * Body of `POST /api/chat` (docs/API.md §4.6): `{ messages: [{ role, content }], personaId? }`.
 * The last message is a user message with non-empty content (the service's
 * rule, docs/API.md §4.3 rule 2), checked here so the page can say what to fix.
 */
export const chatRequestSchema = z
  .object({
    messages: z
      .array(chatMessageSchema, { error: "must be an array of { role, content } messages" })
      .min(1, { error: "must hold at least one message" })
      .max(MAX_MESSAGES, { error: `must hold at most ${MAX_MESSAGES} messages` }),
    personaId: personaIdField,
  })
  .superRefine((request, context) => {
    const index = request.messages.length - 1;
    const last = request.messages[index];
    if (last === undefined) return;
    if (last.role !== "user") {
      context.addIssue({
        code: "custom",
        path: ["messages", index, "role"],
        message: `the last message must have role user, not ${last.role}`,
      });
    } else if (contentText(last.content).trim() === "") {
      context.addIssue({
        code: "custom",
        path: ["messages", index, "content"],
        message: "the last user message must not be empty",
      });
    }
  });

/** A validated chat request. */
export type ChatRequest = z.output<typeof chatRequestSchema>;

/**
 * Body of `POST /api/personify` (docs/API.md §4.6): `{ raw, personaId? }`, the
 * service's own /personify request (shared's `personifyRequestSchema`) with
 * the persona ID optional.
 */
export const personifyRequestSchema = servicePersonifyRequestSchema.extend({
  personaId: personaIdField,
});

/** A validated personify request. */
export type PersonifyRequest = z.output<typeof personifyRequestSchema>;

/** Renders an issue path as `messages[2].content`. */
function formatPath(path: readonly PropertyKey[]): string {
  let result = "";
  for (const segment of path) {
    if (typeof segment === "number") result += `[${segment}]`;
    else result += result === "" ? String(segment) : `.${String(segment)}`;
  }
  return result;
}

/**
 * Validates a request body with a route's schema.
 *
 * @returns the parsed body
 * @throws {ExampleAppError} a `validation` error (400) whose message names the
 *   first offending field and what to fix, e.g. `prompt: is required`
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  if (body === undefined) {
    throw validationError(
      "the request body must be a JSON object sent with content-type: application/json",
    );
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    const what = body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`;
    throw validationError(`the request body must be a JSON object, not ${what}`);
  }
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw validationError("invalid request body");
  const field = formatPath(issue.path);
  const missing = issue.code === "invalid_type" && "input" in issue && issue.input === undefined;
  const text = missing ? "is required" : issue.message;
  throw validationError(field === "" ? text : `${field}: ${text}`);
}
