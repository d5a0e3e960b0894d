import { STOP_WORDS } from "./stop-words.js";

/** A run of word characters (a word) or of anything else (a separator). */
export interface TextToken {
  text: string;
  isWord: boolean;
}

// Letters, combining marks and digits, with inner apostrophes and hyphens
// ("don't", "l’homme", "e-mail"); everything else is a separator. The two
// alternatives are complementary, so the tokens cover the whole text, and
// neither can backtrack, so matching stays linear. With the `u` flag a lone
// surrogate is simply one code point of a separator.
const TOKEN_PATTERN = /[\p{L}\p{M}\p{N}]+(?:['’-][\p{L}\p{M}\p{N}]+)*|[^\p{L}\p{M}\p{N}]+/gu;

/**
 * Splits text into alternating word and separator tokens; joining their
 * `text` gives back the input exactly.
 *
 * @param text - any string (emoji, right-to-left scripts, lone surrogates)
 * @returns the tokens in order, an empty list for an empty string
 * @example
 * tokenize("Hi, you!"); // Hi | ", " | you | "!"
 */
export function tokenize(text: string): TextToken[] {
  const tokens: TextToken[] = [];
  for (const match of text.matchAll(TOKEN_PATTERN)) {
    tokens.push({ text: match[0], isWord: WORD_START.test(match[0]) });
  }
  return tokens;
}

const WORD_START = /^[\p{L}\p{M}\p{N}]/u;

/**
 * Lowercases a word and straightens its apostrophes, the form used for
 * look-ups in word lists.
 *
 * @example
 * normalizeWord("Don’t"); // "don't"
 */
export function normalizeWord(word: string): string {
  return word.toLowerCase().replaceAll("’", "'");
}

/**
 * The normalized words of a text, in order (separators dropped).
 *
 * @example
 * wordsOf("Hello, World!"); // ["hello", "world"]
 */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const token of tokenize(text)) {
    if (token.isWord) words.push(normalizeWord(token.text));
  }
  return words;
}

// Contracted auxiliaries ("I'm", "won't") are function words too; a plain
// "'s" is left alone because it is usually a possessive ("Anna's").
const CONTRACTED_ENDINGS = ["n't", "'m", "'re", "'ve", "'ll", "'d"];
const CONTRACTED_IS = new Set(
  ["it", "that", "what", "there", "here", "he", "she", "who", "where", "how", "let"].map(
    (word) => `${word}'s`,
  ),
);

/**
 * Whether a normalized word carries meaning: not a stop word, not a
 * contracted auxiliary, and not a lone letter.
 *
 * @example
 * isContentWord("refund"); // true
 * isContentWord("the"); // false
 */
export function isContentWord(normalized: string): boolean {
  if (STOP_WORDS.has(normalized)) return false;
  if (CONTRACTED_ENDINGS.some((ending) => normalized.endsWith(ending))) return false;
  if (CONTRACTED_IS.has(normalized)) return false;
  // One character is a word only when it is a digit or a whole CJK-style
  // ideograph; a single Latin letter is usually noise ("u", "r").
  if ([...normalized].length === 1) return !/^[a-z]$/.test(normalized);
  return true;
}
