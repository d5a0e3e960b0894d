import type {
  ModelProvider,
  ProviderMessage,
  ProviderRequest,
  ProviderResult,
  ProviderUsage,
} from "../model-provider.js";
import { personifyText } from "./personify-text.js";
import { createSeededRandom, hashTexts } from "./seeded-random.js";

/** Rough characters per token, for usage estimates (billing needs numbers, not precision). */
const CHARACTERS_PER_TOKEN = 4;

/**
 * Creates the `offline` model provider: a deterministic, rule-based composer
 * for development and tests. It is not a language model: it classifies the
 * last user turn (greeting, question, request for help, avoided topic, …) and
 * fills templates chosen by the persona's traits; for `personify` it restyles
 * the source text (contractions, openers, closers) without acting on it. No
 * network, no timers, no `Math.random`.
 *
 * `complete` returns exactly `request.candidates` texts. The same persona id,
 * task, messages, source and candidate index always give the same text;
 * different candidate indexes start from different templates. `usage` counts
 * one token per four UTF-16 characters, rounded up, of all message contents
 * (input) and of the texts (output).
 *
 * @param name - the upstream's name in the operator configuration (default `offline`)
 * @returns a provider with that name
 * @throws from `complete`, the signal's abort reason when `request.signal` is already aborted
 * @example
 * const provider = createOfflineProvider();
 * const { texts } = await provider.complete({ persona, task: "reply", messages, candidates: 2, signal });
 */
export function createOfflineProvider(name = "offline"): ModelProvider {
  return {
    name,
    async complete(request: ProviderRequest): Promise<ProviderResult> {
      // The work is synchronous and fast, so only an abort before it starts can
      // matter (and one while the composer loads, the first time).
      request.signal.throwIfAborted();
      const { persona } = request;
      const conversation = conversationTexts(request);
      // One seed for the conversation picks the first template; each candidate
      // then moves one template on, so candidates differ.
      const variantBase = hashTexts(conversation);
      const userText = lastUserText(request.messages);
      const source = request.source ?? userText;
      const composer = request.task === "reply" ? await loadComposer() : undefined;
      request.signal.throwIfAborted();
      const turn = composer?.readTurn(persona.traits, userText);
      const texts: string[] = [];
      for (let index = 0; index < request.candidates; index++) {
        const random = createSeededRandom(hashTexts([String(index)], variantBase));
        const variant = variantBase + index;
        texts.push(
          composer === undefined || turn === undefined
            ? personifyText({ traits: persona.traits, source, random, variant })
            : composer.composeReply({ traits: persona.traits, turn, random, variant }),
        );
      }
      return { texts, usage: estimateUsage(request.messages, texts) };
    },
  };
}

type Composer = typeof import("./compose-reply.js");
let composerModule: Promise<Composer> | undefined;

/**
 * The reply composer, imported on first use: it reads English with
 * compromise, whose lexicon takes about 0.3 s to load, which processes that
 * never compose a reply (most `persona-admin` commands, /personify) do not
 * pay. Loaded once; later calls get the same module.
 */
function loadComposer(): Promise<Composer> {
  composerModule ??= import("./compose-reply.js");
  return composerModule;
}

/**
 * Loads the offline engine's reply composer now, so that the service's
 * first reply does not pay its 0.3 s inside a request's deadline. The
 * service awaits it before it listens; other processes load it on first use.
 *
 * @returns once the composer is loaded
 */
export async function preloadOfflineComposer(): Promise<void> {
  await loadComposer();
}

/** Everything that decides the output apart from the candidate index, in a fixed order. */
function conversationTexts(request: ProviderRequest): string[] {
  const parts = [request.persona.id, request.task, request.source ?? ""];
  for (const message of request.messages) parts.push(message.role, message.content);
  return parts;
}

/** The content of the last `user` message, `""` when there is none. */
function lastUserText(messages: readonly ProviderMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === "user") return message.content;
  }
  return "";
}

/** Token counts at four characters a token, rounded up. */
function estimateUsage(
  messages: readonly ProviderMessage[],
  texts: readonly string[],
): ProviderUsage {
  const inputCharacters = messages.reduce((total, message) => total + message.content.length, 0);
  const outputCharacters = texts.reduce((total, text) => total + text.length, 0);
  return {
    inputTokens: Math.ceil(inputCharacters / CHARACTERS_PER_TOKEN),
    outputTokens: Math.ceil(outputCharacters / CHARACTERS_PER_TOKEN),
  };
}
