import { findAvoidedTopic } from "./avoided-topic.js";
import { readSentences, type Word } from "./english.js";
import { wordsOf } from "./text-tokens.js";

/** What a user turn is doing, as far as a rule-based reader can tell. */
export type Intent =
  | "greeting"
  | "farewell"
  | "thanks"
  | "apology"
  | "question"
  | "help"
  | "avoided-topic"
  | "statement";

/** The reading of a user turn. */
export interface IntentReading {
  intent: Intent;
  /** For `avoided-topic`: the avoided topic as the persona's guidelines spell it. */
  avoidedTopic?: string;
}

const GREETINGS = [
  "hi",
  "hello",
  "hey",
  "hiya",
  "howdy",
  "greetings",
  "yo",
  "good morning",
  "good afternoon",
  "good evening",
  "good day",
];
const FAREWELLS = [
  "bye",
  "goodbye",
  "farewell",
  "see you",
  "see ya",
  "good night",
  "take care",
  "talk later",
  "talk soon",
  "catch you later",
  "later",
  "cya",
  "gotta go",
];
const THANKS = ["thanks", "thank you", "thx", "ty", "cheers", "much appreciated", "appreciate it"];
const APOLOGIES = ["sorry", "apologies", "i apologize", "i apologise", "my bad", "oops"];
const HELP_STARTS = ["can you", "could you", "would you", "will you", "please", "i want"];
const HELP_PHRASES = ["help", "assist", "assistance", "stuck", "trouble", "i need", "we need"];
const QUESTION_STARTS = new Set(
  `what why when where who whom whose which how can could would will should shall do does did
  is are am was were have has had may might must isn't aren't don't doesn't didn't can't won't
  wouldn't couldn't shouldn't anyone anybody`
    .split(/\s+/)
    .filter((word) => word !== ""),
);

/** Most words of a social turn ("thanks so much!"); longer turns carry content. */
const SOCIAL_TURN_WORDS = 8;
/** Most words of a greeting; "hi, my order is late" is a statement with an opener. */
const GREETING_WORDS = 5;

/**
 * Classifies a user turn. Order of precedence: a turn about one of
 * `avoidTopics` wins (its words or, for common topics, their synonyms, in
 * any form: see {@link findAvoidedTopic}); then a short social turn without
 * a question mark (apology, thanks, farewell, greeting); then a request for
 * help (a help phrase, or a sentence in the imperative: "Explain crop
 * rotation.", "Tell me how…"), a question (ends with a question mark or
 * starts with a question word), a longer apology or thanks; anything else
 * is a statement.
 *
 * @param text - the last user message
 * @param avoidTopics - the persona's `behaviouralGuidelines.avoidTopics`
 * @param readMessage - the message as {@link readSentences} reads it; called only when a
 *   rule needs it (the caller may keep the reading for its topic)
 * @returns the intent, with the matched avoid topic for `avoided-topic`
 * @example
 * classifyIntent("Hello there!", []); // { intent: "greeting" }
 * classifyIntent("Should I vote?", ["politics"]); // { intent: "avoided-topic", avoidedTopic: "politics" }
 */
export function classifyIntent(
  text: string,
  avoidTopics: readonly string[],
  readMessage: () => readonly (readonly Word[])[] = () => readSentences(text),
): IntentReading {
  const avoidedTopic = findAvoidedTopic(text, avoidTopics);
  if (avoidedTopic !== undefined) return { intent: "avoided-topic", avoidedTopic };

  const words = wordsOf(text);
  // Spaces around every word turn phrase search into a whole-word match.
  const spaced = ` ${words.join(" ")} `;
  const has = (phrases: readonly string[]): boolean =>
    phrases.some((phrase) => spaced.includes(` ${phrase} `));
  const startsWith = (phrases: readonly string[]): boolean =>
    phrases.some((phrase) => spaced.startsWith(` ${phrase} `));
  const endsWith = (phrases: readonly string[]): boolean =>
    phrases.some((phrase) => spaced.endsWith(` ${phrase} `));
  const asks = endsWithQuestionMark(text);

  if (words.length <= SOCIAL_TURN_WORDS && !asks) {
    if (startsWith(APOLOGIES)) return { intent: "apology" };
    if (has(THANKS)) return { intent: "thanks" };
    if (startsWith(FAREWELLS) || endsWith(FAREWELLS) || has(["bye", "goodbye"])) {
      return { intent: "farewell" };
    }
    if (words.length <= GREETING_WORDS && startsWith(GREETINGS)) return { intent: "greeting" };
  }
  if (startsWith(HELP_STARTS) || has(HELP_PHRASES)) return { intent: "help" };
  if (asks || QUESTION_STARTS.has(words[0] ?? "")) return { intent: "question" };
  if (readMessage().some(isImperative)) return { intent: "help" };
  if (startsWith(APOLOGIES)) return { intent: "apology" };
  if (startsWith(THANKS)) return { intent: "thanks" };
  return { intent: "statement" };
}

/**
 * Whether a sentence asks for something in the imperative: its first word
 * after an interjection ("please", "ok") is a verb compromise reads as an
 * imperative ("Explain…", "Tell me…", "Recommend…").
 */
function isImperative(sentence: readonly Word[]): boolean {
  const first = sentence.find((word) => !word.tags.has("Expression") && word.text !== "");
  return first?.tags.has("Imperative") === true;
}

/** Whether the text ends with a question mark (Latin, full-width or Arabic), ignoring trailing emoji and spaces. */
function endsWithQuestionMark(text: string): boolean {
  for (let index = text.length - 1; index >= 0; index--) {
    const character = text.charAt(index);
    if (character === "?" || character === "？" || character === "؟") return true;
    // Look back past spaces, closing quotes and emoji ("Really? 🙂"), not past words.
    if (/[\p{L}\p{N}.!]/u.test(character)) return false;
  }
  return false;
}
