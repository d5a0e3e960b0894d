import { normalizeWord, tokenize } from "./text-tokens.js";

const DETERMINERS = new Set(["a", "an", "the", "your", "my", "our", "this"]);

// Operators often write the role as an instruction ("You are a tutor").
const LEAD_INS = [["you", "are"], ["you're"], ["i", "am"], ["i'm"], ["act", "as"], ["as"]];

/** Most words of a role phrase; the rest of a long role description is dropped. */
const MAXIMUM_ROLE_WORDS = 12;

/**
 * Turns a persona's `behaviouralGuidelines.role` into a noun phrase that
 * reads after "As …": the first clause, at most twelve words, without a
 * lead-in such as "You are", with "your" added when it has no determiner
 * ("Support agent" → "your support agent", grammatical for any noun without
 * choosing between "a" and "an"). A sentence-case capital is lowered, a name
 * ("Acme Support") is kept.
 *
 * @param role - the role as the operator wrote it
 * @returns a noun phrase, `"your assistant"` when the role has no words
 * @example
 * rolePhrase("You are a friendly barista at Bean There."); // "a friendly barista at Bean There"
 */
export function rolePhrase(role: string): string {
  const words: string[] = [];
  const joiners: string[] = [];
  for (const token of tokenize(role)) {
    if (token.isWord) {
      if (words.length === MAXIMUM_ROLE_WORDS) break;
      words.push(token.text);
    } else if (words.length > 0) {
      // Spaces, hyphens, "&" and "/" join words; other punctuation ends the clause.
      if (!/^[ \t\-&/]+$/.test(token.text)) break;
      joiners[words.length - 1] = token.text.trim() === "" ? " " : token.text;
    }
  }
  const normalized = words.map(normalizeWord);
  const leadIn = LEAD_INS.find(
    (lead) => lead.length < words.length && lead.every((word, index) => normalized[index] === word),
  );
  const start = leadIn?.length ?? 0;
  const first = words[start];
  if (first === undefined) return "your assistant";

  let phrase = "";
  for (let index = start; index < words.length; index++) {
    phrase += words[index] + (index < words.length - 1 ? (joiners[index] ?? " ") : "");
  }
  const firstNormalized = normalized[start] ?? "";
  const second = words[start + 1] ?? "";
  const sentenceCase = DETERMINERS.has(firstNormalized) || second === second.toLowerCase();
  // A possessive first word is a name ("Acme's"), whatever follows it.
  const possessive = firstNormalized.endsWith("'s");
  if (sentenceCase && !possessive && first.slice(1) === first.slice(1).toLowerCase()) {
    phrase = phrase.charAt(0).toLowerCase() + phrase.slice(1);
  }
  if (DETERMINERS.has(firstNormalized) || possessive) return phrase;
  return `your ${phrase}`;
}
