import { tokenize } from "./text-tokens.js";

/** Most words of a subject ("Rio de Janeiro" is three). */
const MAXIMUM_SUBJECT_WORDS = 4;
/** Longest subject kept; longer runs of capitals are usually shouting or noise. */
const MAXIMUM_SUBJECT_LENGTH = 40;
// Small words that may sit inside a name between capitalized words
// ("Rio de Janeiro", "Bay of Biscay"), never at its start or end.
const NAME_CONNECTORS = new Set([
  "de",
  "da",
  "do",
  "del",
  "della",
  "di",
  "of",
  "la",
  "le",
  "van",
  "von",
]);

/**
 * Finds the subject a user message names: the first proper noun, read as
 * a capitalized word that does not start a sentence ("…a weekend trip to
 * Lisbon." → "Lisbon"), joined with the capitalized words right after it
 * and small name connectors between them ("New York", "Rio de Janeiro").
 * "I" and its contractions are not names. A capital at a sentence start
 * says nothing, so such a word counts only when the next word is
 * capitalized too ("New York is…"). One pass over the tokens.
 *
 * @param text - the user's message (any Unicode)
 * @returns the subject as written, or `""` when the message names none
 * @example
 * extractSubject("I'm planning a weekend trip to Lisbon. Any tips?"); // "Lisbon"
 * extractSubject("what's good to eat in new york"); // ""
 */
export function extractSubject(text: string): string {
  const tokens = tokenize(text);
  let sentenceStart = true;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index];
    if (token === undefined) continue;
    if (!token.isWord) {
      if (/[.!?。！？؟:;]/u.test(token.text)) sentenceStart = true;
      continue;
    }
    const startsSentence = sentenceStart;
    sentenceStart = false;
    if (!isCapitalized(token.text) || isFirstPerson(token.text)) continue;
    const words = nameAt(tokens, index);
    if (startsSentence && words.length < 2) continue;
    const subject = words.join(" ");
    if (subject.length <= MAXIMUM_SUBJECT_LENGTH) return subject;
  }
  return "";
}

/** The capitalized words from `start` on, joined by single spaces and name connectors. */
function nameAt(tokens: ReturnType<typeof tokenize>, start: number): string[] {
  const words = [tokens[start]?.text ?? ""];
  let pendingConnectors: string[] = [];
  for (let index = start + 1; index + 1 < tokens.length; index += 2) {
    const separator = tokens[index];
    const word = tokens[index + 1];
    if (separator === undefined || word === undefined || separator.text !== " " || !word.isWord) {
      break;
    }
    if (isCapitalized(word.text) && !isFirstPerson(word.text)) {
      words.push(...pendingConnectors, word.text);
      pendingConnectors = [];
      if (words.length >= MAXIMUM_SUBJECT_WORDS) break;
    } else if (NAME_CONNECTORS.has(word.text) && pendingConnectors.length === 0) {
      pendingConnectors.push(word.text);
    } else {
      break;
    }
  }
  return words;
}

/** Whether a word starts with a capital letter ("Lisbon", "API"; not "iPhone"). */
function isCapitalized(word: string): boolean {
  return /^\p{Lu}/u.test(word);
}

/** "I", "I'm", "I’ve", … */
function isFirstPerson(word: string): boolean {
  return /^I(?:['’][\p{L}]+)?$/u.test(word);
}
