import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { GenerateResult, MessageInput } from "@persona-reply/client";
import { z } from "zod";
import { ToolInputError } from "./tool-error.js";

/** Name of the tool that replies in the persona's voice. */
export const GENERATE_TOOL_NAME = "generate";

const textPartSchema = z.object({
  type: z.literal("text"),
  text: z.string(),
});

/** A message of a history: the spec's Message shape (docs/API.md §2), described for a model. */
export const toolMessageSchema = z.object({
  role: z
    .enum(["user", "assistant", "system", "developer"])
    .describe(
      "Who wrote it: user (the person being answered), assistant (the persona's earlier replies), system or developer (context and instructions for the persona).",
    ),
  content: z
    .union([z.string(), z.array(textPartSchema)])
    .describe('The text, or an array of text parts [{ "type": "text", "text": "…" }]. Text only.'),
  timestamp: z
    .union([z.number(), z.string()])
    .optional()
    .describe(
      "When it was written: Unix seconds or milliseconds, or a date string. Optional; createdAt and created_at are accepted too.",
    ),
  createdAt: z.union([z.number(), z.string()]).optional().describe("Same as timestamp."),
  created_at: z.union([z.number(), z.string()]).optional().describe("Same as timestamp."),
});

/** Input of the `generate` tool (a raw zod shape, as `registerTool` takes it). */
export const generateInputShape = {
  messages: z
    .array(toolMessageSchema)
    .min(1)
    .optional()
    .describe(
      "The whole conversation to reply to, oldest first, ending with a user message with non-empty content; system and developer messages go before that last user message. Use this or `message`, not both.",
    ),
  message: z
    .string()
    .optional()
    .describe(
      "For the simple case: the user's message to reply to. Earlier turns, if any, go in `history`. Use this or `messages`, not both.",
    ),
  history: z
    .array(toolMessageSchema)
    .optional()
    .describe(
      "With `message` only: the earlier turns, oldest first (user and assistant messages, system or developer context). The service keeps no conversation state, so send what should be remembered.",
    ),
  includeVariations: z
    .boolean()
    .optional()
    .describe(
      "Set true to also get alternative replies in replyChoices (the selected one is finalReply). Default false.",
    ),
};

/** Output of the `generate` tool: the reply result of docs/API.md §2 (`structuredContent`). */
export const generateOutputShape = {
  finalReply: z.string().describe("The selected reply."),
  chunks: z
    .array(z.string())
    .describe("The reply split into message-sized pieces, to send as separate chat messages."),
  replyChoices: z
    .array(z.string())
    .optional()
    .describe("Alternative replies; only possibly present when includeVariations was true."),
};

/** The `generate` tool's arguments after schema validation. */
export interface GenerateToolInput {
  messages?: MessageInput[] | undefined;
  message?: string | undefined;
  history?: MessageInput[] | undefined;
  includeVariations?: boolean | undefined;
}

/** What a model reads about `generate` in tools/list. */
export const GENERATE_TOOL_DESCRIPTION = [
  "Writes the next chat reply in the voice of the Persona Reply persona this server is configured for (a custom persona with its own personality, style and boundaries; which persona is fixed by the server's configuration, not chosen per call).",
  "Use it when you need what this persona would say: answering a user as the persona, drafting a message or a character's line in its voice. To restyle text you already have, use personify instead.",
  "Give either `messages` (the full history, oldest first, ending with a non-empty user message; system and developer messages are context and come before it) or, for one turn, `message` with optional `history`. The service is stateless: send the context you want considered every time.",
  "Returns the reply as text; the structured result has finalReply, chunks (the reply in message-sized pieces) and, with includeVariations, replyChoices. Each call is billed and rate limited; on an error, relay the message to the user and follow what it says.",
].join(" ");

/**
 * Turns the tool's arguments into the message history sent to /generate:
 * `messages` as given, or `history` followed by `message` as a user message.
 *
 * @throws {ToolInputError} when both or neither of `messages` and `message`
 * are given, or `history` comes without `message`
 *
 * @example
 * historyOf({ message: "Hi!", history: [{ role: "assistant", content: "Hello." }] });
 * // [{ role: "assistant", content: "Hello." }, { role: "user", content: "Hi!" }]
 */
export function historyOf(input: GenerateToolInput): MessageInput[] {
  if (input.messages !== undefined && input.message !== undefined) {
    throw new ToolInputError(
      "give either `messages` (the whole history) or `message` (with optional `history`), not both",
    );
  }
  if (input.messages !== undefined) {
    if (input.history !== undefined) {
      throw new ToolInputError(
        "`history` goes with `message`; with `messages`, put the whole history in `messages`",
      );
    }
    return input.messages;
  }
  if (input.message === undefined) {
    throw new ToolInputError(
      "give `message` (the text to reply to) or `messages` (the whole history ending with a user message)",
    );
  }
  return [...(input.history ?? []), { role: "user", content: input.message }];
}

/**
 * The tool result of a reply: the final reply as text (and the alternatives
 * as a second text block, for clients that ignore structured content), and
 * `structuredContent` `{ finalReply, chunks, replyChoices? }` matching
 * {@link generateOutputShape}. `rateLimits` stays out of it.
 */
export function generateToolResult(reply: GenerateResult): CallToolResult {
  const structured: { finalReply: string; chunks: string[]; replyChoices?: string[] } = {
    finalReply: reply.finalReply,
    chunks: reply.chunks,
  };
  const content: CallToolResult["content"] = [{ type: "text", text: reply.finalReply }];
  if (reply.replyChoices !== undefined) {
    structured.replyChoices = reply.replyChoices;
    const listed = reply.replyChoices.map((choice, index) => `${index + 1}. ${choice}`);
    content.push({ type: "text", text: `Alternative replies:\n${listed.join("\n")}` });
  }
  return { content, structuredContent: structured };
}
