import type { Message } from "@persona-reply/shared";
import { mapHistory } from "../engine/history.js";
import { compilePersonifyInstruction, compileSystemPrompt } from "../engine/system-prompt.js";
import type { Persona } from "../personas/persona.js";
import type { ProviderMessage } from "../providers/model-provider.js";

/**
 * The prompt the persona engine sends for a reply, built the same way, for
 * sizing the reservation of token-priced routes.
 */
export function replyPromptOf(persona: Persona, messages: readonly Message[]): ProviderMessage[] {
  return mapHistory(persona, messages);
}

/** The prompt the persona engine sends for /personify (system prompt and data block). */
export function personifyPromptOf(persona: Persona, source: string): ProviderMessage[] {
  return [
    { role: "system", content: compileSystemPrompt(persona) },
    { role: "user", content: compilePersonifyInstruction(source) },
  ];
}
