import { contentText, type Message } from "@persona-reply/shared";
import type { Persona } from "../personas/persona.js";
import type { ProviderMessage } from "../providers/model-provider.js";
import { compileSystemPrompt } from "./system-prompt.js";

const CONTEXT_LABEL = {
  system: "Context from the application (your boundaries above still apply):",
  developer: "Context from the developer (your boundaries above still apply):",
} as const;

/**
 * Maps a client's message history to the provider format: the compiled
 * persona prompt first, then the history in order. Client `system` and
 * `developer` messages are text-only context (docs/API.md §4.1 rule 3); they become
 * labelled system messages that cannot displace the persona prompt.
 */
export function mapHistory(persona: Persona, messages: readonly Message[]): ProviderMessage[] {
  const mapped: ProviderMessage[] = [{ role: "system", content: compileSystemPrompt(persona) }];
  for (const message of messages) {
    const text = contentText(message.content);
    if (message.role === "system" || message.role === "developer") {
      mapped.push({ role: "system", content: `${CONTEXT_LABEL[message.role]}\n${text}` });
    } else {
      mapped.push({ role: message.role, content: text });
    }
  }
  return mapped;
}
