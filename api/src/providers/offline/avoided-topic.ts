import { AVOID_TOPIC_GROUPS, type AvoidTopicGroup } from "./avoid-topic-synonyms.js";
import { wordForms } from "./english.js";
import { wordsOf } from "./text-tokens.js";

/** The phrases that mean each avoid topic of one persona, in every form. */
interface AvoidTopicMatcher {
  /** Lowercase phrase (words joined by one space) → the avoid topic as the operator wrote it. */
  phrases: ReadonlyMap<string, string>;
  /** Most words of a phrase. */
  longest: number;
}

// A persona's traits are read once and kept while it is cached, so its
// matcher is built once per list; a list seen once costs a few milliseconds.
const matchers = new WeakMap<readonly string[], AvoidTopicMatcher>();
// Forms of the table's entries, shared by every persona (bounded by the table).
const tableForms = new Map<string, readonly string[]>();

/**
 * Finds the avoid topic a message is about: one of the persona's
 * `avoidTopics` (trimmed, as written) when the message holds the topic's
 * words or, for a topic of the synonym table ({@link AVOID_TOPIC_GROUPS}:
 * politics, religion, medication, …), one of its words, as whole words and
 * in any form: "Should I vote?" and "the elections" are about "politics",
 * "medicines" about "medication". Case and punctuation do not matter; the
 * whole message is read (word look-ups, linear in its length). When several
 * match, the one the message names first wins.
 *
 * @param text - the user's message
 * @param avoidTopics - the persona's `behaviouralGuidelines.avoidTopics`
 * @returns the avoid topic, or `undefined` when the message touches none
 * @example
 * findAvoidedTopic("Who should I vote for?", ["politics"]); // "politics"
 * findAvoidedTopic("Any stock   tips!", ["Stock tips"]); // "Stock tips"
 */
export function findAvoidedTopic(text: string, avoidTopics: readonly string[]): string | undefined {
  if (avoidTopics.length === 0) return undefined;
  const { phrases, longest } = matcherOf(avoidTopics);
  const words = wordsOf(text);
  for (let start = 0; start < words.length; start++) {
    let phrase = "";
    for (let end = start; end < words.length && end - start < longest; end++) {
      phrase = end === start ? (words[end] as string) : `${phrase} ${words[end]}`;
      const topic = phrases.get(phrase);
      if (topic !== undefined) return topic;
    }
  }
  return undefined;
}

function matcherOf(avoidTopics: readonly string[]): AvoidTopicMatcher {
  const cached = matchers.get(avoidTopics);
  if (cached !== undefined) return cached;
  const phrases = new Map<string, string>();
  const add = (forms: readonly string[], topic: string): void => {
    for (const form of forms) if (!phrases.has(form)) phrases.set(form, topic);
  };
  const topics = avoidTopics
    .map((written) => ({ written: written.trim(), forms: phraseForms(wordsOf(written).join(" ")) }))
    .filter((topic) => topic.forms.length > 0);
  // A topic's own words first, so they name it even when another topic's synonyms hold them.
  for (const topic of topics) add(topic.forms, topic.written);
  for (const topic of topics) {
    for (const group of groupsOf(topic.forms)) {
      for (const word of group.words) add(formsOfEntry(word), topic.written);
    }
  }
  let longest = 0;
  for (const phrase of phrases.keys()) longest = Math.max(longest, phrase.split(" ").length);
  const matcher = { phrases, longest };
  matchers.set(avoidTopics, matcher);
  return matcher;
}

/** The synonym groups a topic belongs to: one of its forms is a group's name or word. */
function groupsOf(forms: readonly string[]): AvoidTopicGroup[] {
  return AVOID_TOPIC_GROUPS.filter((group) =>
    forms.some((form) => group.names.includes(form) || group.words.includes(form)),
  );
}

/** {@link phraseForms} of a table entry, computed once. */
function formsOfEntry(entry: string): readonly string[] {
  let forms = tableForms.get(entry);
  if (forms === undefined) {
    forms = phraseForms(entry);
    tableForms.set(entry, forms);
  }
  return forms;
}

/** A phrase in every form of its last word ("stock tip" → "stock tip", "stock tips"); none for `""`. */
function phraseForms(phrase: string): string[] {
  if (phrase === "") return [];
  const words = phrase.split(" ");
  const last = words.pop() as string;
  const lead = words.length === 0 ? "" : `${words.join(" ")} `;
  return wordForms(last).map((form) => lead + form);
}
