import type { ProviderMessage } from "../model-provider.js";

/** One turn of the Anthropic Messages API (text only). */
export interface AnthropicTurn {
  role: "user" | "assistant";
  content: string;
}

/** The prompt in the Messages API's shape: a top-level `system` and alternating turns. */
export interface AnthropicPrompt {
  system: string;
  messages: AnthropicTurn[];
}

/** Introduces, in `system`, an assistant turn that opened the conversation before any user turn. */
export const OPENING_ASSISTANT_LABEL =
  "The conversation opened with this message from you (the assistant), before the user's first message:";

/**
 * Maps the engine's prompt to the Anthropic Messages API: every `system`
 * message — the compiled persona prompt first, then the client's labelled
 * system and developer context (docs/API.md §4.1 rule 3) — joins the top-level
 * `system` parameter, in order, since the API has no system role among its
 * turns; user and assistant messages become turns in order, consecutive
 * turns of one role merged into one (separated by a blank line) so that the
 * turns alternate as the API expects.
 *
 * The Messages API's turns start with a user turn, while a history here may
 * open with the assistant (docs/API.md §4.1: only the last message must be the
 * user's) — a greeting the application showed first. Such an opening
 * assistant turn is folded into `system`, last, as labelled context
 * ({@link OPENING_ASSISTANT_LABEL}) rather than answered by a made-up user
 * turn: an invented user message would put words in the person's mouth that
 * the model may reply to, whereas context keeps what the assistant said
 * without a turn nobody wrote.
 *
 * @example
 * toAnthropicPrompt([
 *   { role: "system", content: "You are Juniper." },
 *   { role: "user", content: "Hi" },
 *   { role: "user", content: "Are you there?" },
 * ]);
 * // { system: "You are Juniper.", messages: [{ role: "user", content: "Hi\n\nAre you there?" }] }
 */
export function toAnthropicPrompt(messages: readonly ProviderMessage[]): AnthropicPrompt {
  const system: string[] = [];
  const turns: AnthropicTurn[] = [];
  for (const message of messages) {
    if (message.role === "system") {
      system.push(message.content);
      continue;
    }
    const previous = turns.at(-1);
    if (previous?.role === message.role) {
      previous.content = `${previous.content}\n\n${message.content}`;
    } else {
      turns.push({ role: message.role, content: message.content });
    }
  }
  const opening = turns[0]?.role === "assistant" ? turns.shift() : undefined;
  if (opening !== undefined) system.push(`${OPENING_ASSISTANT_LABEL}\n\n${opening.content}`);
  return { system: system.join("\n\n"), messages: turns };
}
