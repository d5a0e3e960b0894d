import type { PersonaTraits } from "../../personas/persona-traits.js";
import { contractText, expandContractions } from "./contractions.js";

type Formality = PersonaTraits["communicationStyle"]["formality"];

/**
 * Applies a formality to generated text: casual contracts ("I am" → "I'm"),
 * formal expands ("don't" → "do not"), neutral contracts only when
 * `neutralContracts` is set (decided once per reply, so a reply is
 * consistent).
 *
 * @param text - text to adjust
 * @param formality - the persona's `communicationStyle.formality`
 * @param neutralContracts - whether a neutral persona contracts this time
 * @param apostrophe - the apostrophe written in contractions
 * @example
 * applyFormality("I am here.", "casual", false); // "I'm here."
 */
export function applyFormality(
  text: string,
  formality: Formality,
  neutralContracts: boolean,
  apostrophe = "'",
): string {
  if (formality === "formal") return expandContractions(text);
  if (formality === "casual" || neutralContracts) return contractText(text, apostrophe);
  return text;
}

/**
 * Turns a final "." into "!" (the voice of an expressive persona). An
 * ellipsis or any other ending is left alone.
 *
 * @example
 * exclaim("Good to see you."); // "Good to see you!"
 */
export function exclaim(text: string): string {
  if (!text.endsWith(".") || text.endsWith("..")) return text;
  return `${text.slice(0, -1)}!`;
}

const TERMINAL_PUNCTUATION = /[.!?…。！？؟]["'”’)\]]*$/u;
const ENDS_WITH_WORD = /[\p{L}\p{M}\p{N}]$/u;

/**
 * Makes a text end as a sentence: adds `mark` when it ends with a letter or
 * digit. Text ending in punctuation, an emoji or a symbol is left alone.
 *
 * @example
 * finishSentence("Stay curious"); // "Stay curious."
 */
export function finishSentence(text: string, mark = "."): string {
  if (TERMINAL_PUNCTUATION.test(text) || !ENDS_WITH_WORD.test(text)) return text;
  return `${text}${mark}`;
}

/**
 * Capitalizes the first character of a sentence (no change for scripts
 * without case).
 *
 * @example
 * capitalizeFirst("as your tutor, I am here."); // "As your tutor, I am here."
 */
export function capitalizeFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
