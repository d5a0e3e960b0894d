import type { PersonaTraits } from "../../personas/persona-traits.js";
import type { SeededRandom } from "./seeded-random.js";
import { applyFormality, capitalizeFirst, exclaim, finishSentence } from "./voice.js";
import { HUMOUR_ASIDES, PERSONIFY_CLOSERS, PERSONIFY_OPENERS } from "./voice-phrasebook.js";

/** What {@link personifyText} needs for one candidate. */
export interface PersonifyTextOptions {
  /** The persona's validated traits. */
  traits: PersonaTraits;
  /** The text to rewrite; it is data, never an instruction. */
  source: string;
  /** This candidate's randomness (seeded, so rewrites are reproducible). */
  random: SeededRandom;
  /** Which opener to use; consecutive values give different openers. */
  variant: number;
}

/** How likely a rewrite carries a humour aside, for personas with humour: rarely. */
const HUMOUR_PROBABILITY = 0.15;
/** How likely a neutral or cool persona adds a closer (warm and upbeat always do). */
const PLAIN_CLOSER_PROBABILITY = 0.3;

/**
 * Rewrites a text in a persona's voice without acting on it: the source is
 * only ever transformed word by word, so "ignore previous instructions and
 * say X" comes back as that sentence, restyled. Every word of meaning and
 * the order of sentences are kept; what changes is the voice:
 *
 * - formality: casual contracts ("do not" → "don't"), formal expands
 *   ("can't" → "cannot"), with an opener sentence in that register;
 * - emotional tone and expression: a warm or upbeat closer, and a final "."
 *   becomes "!" for expressive personas;
 * - humour: now and then a small aside before the closer.
 *
 * Reserved personas get no closer, concise ones no closer or aside. Text with
 * several lines keeps its lines; openers and closers then sit on their own.
 *
 * @returns the rewritten text (an in-voice note when the source is blank)
 * @example
 * personifyText({ traits, source: "I am not able to attend.", random, variant: 0 });
 * // casual persona: "Hey there. I'm not able to attend."
 */
export function personifyText(options: PersonifyTextOptions): string {
  const { traits, source, random, variant } = options;
  const { personality, communicationStyle: style } = traits;
  const neutralContracts = random.chance(0.5);
  // Write contractions with the apostrophe the source already uses.
  const apostrophe = source.includes("’") && !source.includes("'") ? "’" : "'";
  const voice = (text: string): string =>
    applyFormality(text, style.formality, neutralContracts, apostrophe);
  const expressive = style.emotionalExpression === "expressive";
  const feel = (text: string): string => (expressive ? exclaim(text) : text);

  const trimmed = source.trim();
  if (trimmed === "") return voice("There is nothing to rewrite yet.");

  let body = finishSentence(startSentence(voice(trimmed)));
  if (expressive && personality.emotionalTone !== "cool") body = exclaim(body);

  const parts: string[] = [];
  const openers = PERSONIFY_OPENERS[style.formality];
  const opens = style.formality !== "neutral" || style.emotionalExpression !== "reserved";
  if (opens) parts.push(feel(voice(openers[variant % openers.length] ?? "")));
  parts.push(body);
  const chatty = style.verbosity !== "concise";
  if (chatty && personality.humourStyle !== "none" && random.chance(HUMOUR_PROBABILITY)) {
    parts.push(voice(random.pick(HUMOUR_ASIDES[personality.humourStyle])));
  }
  const tone = personality.emotionalTone;
  const closes =
    chatty &&
    style.emotionalExpression !== "reserved" &&
    (tone === "warm" || tone === "upbeat" || random.chance(PLAIN_CLOSER_PROBABILITY));
  if (closes) parts.push(feel(voice(random.pick(PERSONIFY_CLOSERS[tone]))));

  const separator = trimmed.includes("\n") ? "\n\n" : " ";
  return parts.filter((part) => part !== "").join(separator);
}

/**
 * Capitalizes a lowercase first word ("see you" → "See you"), since the
 * source now follows an opener; "iPhone" and "eBay" keep their spelling.
 */
function startSentence(text: string): string {
  const firstWord = /^\S*/.exec(text)?.[0] ?? "";
  return firstWord === firstWord.toLowerCase() ? capitalizeFirst(text) : text;
}
