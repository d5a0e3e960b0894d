import { z } from "zod";
import { LIMITS } from "./constants.js";

/** Roles a message may have (docs/API.md §2 Message). */
export const messageRoleSchema = z.enum(["user", "assistant", "system", "developer"], {
  error: "must be one of user, assistant, system, developer",
});

/** A message's role. */
export type MessageRole = z.infer<typeof messageRoleSchema>;

/** A text part of a message's content: `{ type: "text", text }` (docs/API.md §2 Message). */
export const textPartSchema = z.object({
  type: z.literal("text", { error: 'only text content is supported: part type must be "text"' }),
  text: z.string({ error: "must be a string" }),
});

/** A text part of message content. */
export type TextPart = z.infer<typeof textPartSchema>;

/** Message content: a string or an array of text parts (docs/API.md §2 Message, §4.1 rule 4). */
export const messageContentSchema = z.union(
  [z.string(), z.array(textPartSchema, { error: "must be a string or an array of text parts" })],
  { error: "must be a string or an array of text parts" },
);

/** Message content as sent on the wire. */
export type MessageContent = z.infer<typeof messageContentSchema>;

const timestampValueSchema = z.union([z.number(), z.string()], {
  error: "must be a number (Unix seconds or milliseconds) or a date string",
});

/**
 * Turns a timestamp as sent into an ISO 8601 UTC string, or `undefined` when
 * it cannot be read. Numbers below 10^11 are Unix seconds, larger ones Unix
 * milliseconds; strings are ISO 8601 / RFC 2822 dates or a string of digits.
 *
 * @param value - the `timestamp`, `createdAt` or `created_at` value of a message
 * @returns an ISO 8601 string such as `2026-11-21T10:00:00.000Z`, or undefined
 */
export function normalizeTimestamp(value: number | string): string | undefined {
  let milliseconds: number;
  if (typeof value === "number") {
    milliseconds = Math.abs(value) < 1e11 ? value * 1000 : value;
  } else {
    const trimmed = value.trim();
    if (/^-?\d+(\.\d+)?$/.test(trimmed)) return normalizeTimestamp(Number(trimmed));
    milliseconds = Date.parse(trimmed);
  }
  if (!Number.isFinite(milliseconds)) return undefined;
  const date = new Date(milliseconds);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * Joins a message's content into one text: a string as it is, text parts
 * joined with a newline.
 */
export function contentText(content: MessageContent): string {
  return typeof content === "string" ? content : content.map((part) => part.text).join("\n");
}

/**
 * A message of a history (docs/API.md §2 Message). `timestamp`, `createdAt` and
 * `created_at` are accepted (the first present wins) and normalized into
 * `timestamp` as an ISO 8601 UTC string.
 */
export const messageSchema = z
  .object({
    role: messageRoleSchema,
    content: messageContentSchema,
    timestamp: timestampValueSchema.optional(),
    createdAt: timestampValueSchema.optional(),
    created_at: timestampValueSchema.optional(),
  })
  .superRefine((message, context) => {
    if (contentText(message.content).length > LIMITS.maxTextLength) {
      context.addIssue({
        code: "custom",
        path: ["content"],
        message: `must be at most ${LIMITS.maxTextLength} characters`,
      });
    }
  })
  .transform((message, context) => {
    const sent = message.timestamp ?? message.createdAt ?? message.created_at;
    const normalized: Message = { role: message.role, content: message.content };
    if (sent !== undefined) {
      const timestamp = normalizeTimestamp(sent);
      if (timestamp === undefined) {
        const key =
          message.timestamp !== undefined
            ? "timestamp"
            : message.createdAt !== undefined
              ? "createdAt"
              : "created_at";
        context.addIssue({ code: "custom", path: [key], message: "is not a readable date" });
        return z.NEVER;
      }
      normalized.timestamp = timestamp;
    }
    return normalized;
  });

/** A message after validation: `timestamp` normalized to ISO 8601 when one was sent. */
export interface Message {
  role: MessageRole;
  content: MessageContent;
  timestamp?: string;
}

/** A message as a client may send it (docs/API.md §2 Message). */
export type MessageInput = z.input<typeof messageSchema>;

/** The message list of a history: at least one, at most {@link LIMITS.maxMessages}. */
export const messageListSchema = z
  .array(messageSchema, { error: "must be an array of messages" })
  .min(1, { error: "must contain at least one message" })
  .max(LIMITS.maxMessages, { error: `must contain at most ${LIMITS.maxMessages} messages` });

/**
 * Checks docs/API.md §4.1 rules 1–2 (and §4.3 rule 2): the last message has role
 * user and non-empty content. Adds an issue at `messages[last]` otherwise.
 */
export function checkFinalUserMessage(
  messages: readonly Message[],
  context: z.RefinementCtx,
  path: PropertyKey[] = ["messages"],
): void {
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (last === undefined) return;
  if (last.role !== "user") {
    context.addIssue({
      code: "custom",
      path: [...path, lastIndex, "role"],
      message: `the last message must have role user, not ${last.role}`,
    });
  } else if (contentText(last.content).trim() === "") {
    context.addIssue({
      code: "custom",
      path: [...path, lastIndex, "content"],
      message: "the last user message must have non-empty content",
    });
  }
}
