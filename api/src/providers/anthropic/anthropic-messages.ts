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

/**
 * Maps the engine's prompt to the Anthropic Messages API: every `system`
 * message — the compiled persona prompt first, then the client's labelled
 * system and developer context (spec §4.1 rule 3) — joins the top-level
 * `system` parameter, in order, since the API has no system role among its
 * turns; user and assistant messages become turns in order, consecutive
 * turns of one role merged into one (separated by a blank line) so that the
 * turns alternate as the API expects.
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
  return { system: system.join("\n\n"), messages: turns };
}
