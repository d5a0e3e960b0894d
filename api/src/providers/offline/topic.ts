import { isContentWord, normalizeWord, tokenize } from "./text-tokens.js";

// Small words that may sit between two content words of a topic
// ("history of Rome", "tea and cake") but never start or end one.
const CONNECTORS = new Set(["of", "and", "or", "for", "in", "on", "with", "to", "the", "a", "an"]);

// Possessives inside a topic are turned to the persona's point of view:
// the user's "my password" is "your password" in the reply.
const POSSESSIVES: ReadonlyMap<string, string> = new Map([
  ["my", "your"],
  ["our", "your"],
  ["your", "my"],
]);

// A determiner right before the first content word starts the topic with it
// ("the Alps", "your password"), which reads better inside a sentence.
const DETERMINERS = new Set(["a", "an", "the", "this", "these", "those"]);

// Verbs that often start a request ("how do I keep my tomatoes happy?"). A
// topic starting with one reads as a gerund inside the reply's sentences:
// "the basics of keeping your tomatoes happy", not "of keep your …".
const LEADING_VERBS = new Set([
  "keep",
  "plan",
  "grow",
  "make",
  "get",
  "start",
  "find",
  "choose",
  "fix",
  "water",
  "learn",
  "build",
  "write",
  "cook",
  "use",
  "improve",
  "prune",
  "plant",
  "sow",
  "store",
  "clean",
  "reset",
  "set",
  "run",
  "stop",
  "care",
  "feed",
  "protect",
  "repot",
  "harvest",
  "move",
  "prepare",
  "create",
  "organize",
  "organise",
  "manage",
  "design",
  "compost",
  "mulch",
  "dig",
  "cut",
  "trim",
  "save",
  "pick",
  "buy",
  "sell",
  "deal",
  "handle",
  "avoid",
  "treat",
  "remove",
  "install",
  "update",
  "change",
  "cancel",
  "book",
  "order",
  "pay",
  "send",
  "open",
  "close",
  "check",
]);
// One-syllable verbs ending consonant-vowel-consonant double their last letter.
const DOUBLING_VERBS = new Set([
  "plan",
  "get",
  "set",
  "run",
  "stop",
  "cut",
  "trim",
  "dig",
  "put",
  "shop",
]);

/** "keep" → "keeping", "make" → "making", "plan" → "planning". */
export function gerundOf(verb: string): string {
  if (DOUBLING_VERBS.has(verb)) return `${verb}${verb.at(-1)}ing`;
  if (verb.endsWith("e") && !verb.endsWith("ee")) return `${verb.slice(0, -1)}ing`;
  return `${verb}ing`;
}

/** Longest word taken into a topic; longer ones are usually links or noise. */
const MAXIMUM_WORD_LENGTH = 30;

/**
 * Picks a short topic from a user message: the first run of up to
 * `maximumWords` content words, with the small connectors between them
 * ("history of ancient Rome") and a determiner just before them ("the"),
 * possessives flipped to the persona's side ("my password" → "your
 * password") and a sentence-initial capital lowered. Stops at punctuation so the topic never
 * spans two phrases. Runs in one pass over the text.
 *
 * @param text - the user's message (any Unicode)
 * @param maximumWords - most content words in the topic (default 3)
 * @returns the topic, or `""` when the message has no content word
 * @example
 * extractTopic("Can you help me reset my password?"); // "your password"
 * extractTopic("What is the history of ancient Rome?"); // "the history of ancient Rome"
 */
export function extractTopic(text: string, maximumWords = 3): string {
  const parts: string[] = [];
  let pending: string[] = [];
  let leading = "";
  let contentCount = 0;
  let sentenceStart = true;
  for (const token of tokenize(text)) {
    if (!token.isWord) {
      const blank = token.text.trim() === "";
      if (/[.!?。！？؟]/u.test(token.text)) sentenceStart = true;
      if (contentCount === 0) {
        if (!blank) leading = "";
        continue;
      }
      if (!blank) break;
      continue;
    }
    const normalized = normalizeWord(token.text);
    const atSentenceStart = sentenceStart;
    sentenceStart = false;
    const written = atSentenceStart ? lowerInitial(token.text) : token.text;
    if (isContentWord(normalized) && token.text.length <= MAXIMUM_WORD_LENGTH) {
      if (contentCount === 0 && leading !== "") parts.push(leading);
      parts.push(...pending, written);
      pending = [];
      contentCount += 1;
      if (contentCount >= maximumWords) break;
    } else if (contentCount === 0) {
      // Still looking for the first content word: remember a determiner, skip the rest.
      leading = DETERMINERS.has(normalized) ? written : (POSSESSIVES.get(normalized) ?? "");
    } else if (CONNECTORS.has(normalized) && pending.length < 2) {
      pending.push(normalized);
    } else if (POSSESSIVES.has(normalized) && pending.length < 2) {
      pending.push(POSSESSIVES.get(normalized) as string);
    } else {
      break;
    }
  }
  const first = parts[0];
  if (first !== undefined && LEADING_VERBS.has(first)) parts[0] = gerundOf(first);
  return parts.join(" ");
}

/** Lowers "Pizza" at the start of a sentence; keeps "API", "iPhone" and "McDonald". */
function lowerInitial(word: string): string {
  const rest = word.slice(1);
  if (rest !== rest.toLowerCase()) return word;
  return word.charAt(0).toLowerCase() + rest;
}
