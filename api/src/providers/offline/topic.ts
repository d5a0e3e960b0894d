import { gerundOf, infinitiveOf, readSentences, singularOf, type Word } from "./english.js";

/** Most words of a topic; a phrase is cut at a whole part (a trailing "on a balcony"), never mid-part. */
const MAXIMUM_TOPIC_WORDS = 7;
/** Longest word taken into a topic; longer ones are usually links or noise. */
const MAXIMUM_WORD_LENGTH = 30;

// Possessives are turned to the persona's point of view: the user's "my
// password" is "your password" in the reply, and "your policy" is "my policy".
const POSSESSIVES: ReadonlyMap<string, string> = new Map([
  ["my", "your"],
  ["our", "your"],
  ["your", "my"],
]);
// Object pronouns, turned the same way ("call me" → "calling you").
const OBJECT_PRONOUNS: ReadonlyMap<string, string> = new Map([
  ["me", "you"],
  ["us", "you"],
  ["it", "it"],
  ["them", "them"],
  ["this", "this"],
  ["that", "that"],
]);
// Determiners that ask rather than point ("which herbs", "any tips"): dropped from a topic.
const ASKING_DETERMINERS = new Set([
  "which",
  "what",
  "whatever",
  "whichever",
  "any",
  "much",
  "many",
]);

// Verbs that frame the request rather than name it: their complement is the
// topic ("tell me about the API limits", "I want to grow peppers", "can you
// help me plan a herb garden?", "I'm going to the garden centre"), and
// alone they name nothing ("How are you doing?"). By dictionary form.
const FRAMING_VERBS = new Set(
  `help tell explain show teach describe give recommend suggest know think wonder want need
  like love hate prefer hope wish try mean ask say let please do have consider remind thank
  guide advise share talk discuss go be feel let's`
    .split(/\s+/u)
    .filter((verb) => verb !== ""),
);
// Nouns that frame a request the same way ("any tips on pruning roses?",
// "a question about compost"): the topic is what they are about. Singular.
const FRAMING_NOUNS = new Set(
  `tip advice idea suggestion recommendation question information info help thought opinion
  pointer guidance hint word detail`
    .split(/\s+/u)
    .filter((noun) => noun !== ""),
);
// Prepositions that bind a phrase to the noun before it ("the history of
// Rome", "compost for pots", "a trip to Lisbon").
const ATTACHING = new Set(["of", "for", "on", "in", "at", "with", "about", "to", "from", "into"]);
// Prepositions of place and time that may follow a subject's verb and still
// describe the subject ("herbs [grow well] on a balcony", "flowers [bloom] in winter").
const SETTING = new Set(["on", "in", "at", "under", "inside", "near", "during"]);
// "Good morning" and its kin, which greet rather than name a topic.
const TIMES_OF_DAY = new Set(["morning", "afternoon", "evening", "day", "night"]);
// Prepositions that introduce what a framing noun or verb is about.
const ABOUT = new Set(["on", "about", "for", "with", "regarding", "concerning", "to"]);

type Kind =
  | "noun"
  | "modifier"
  | "determiner"
  | "possessive"
  | "pronoun"
  | "verb"
  | "gerund"
  | "auxiliary"
  | "preposition"
  | "conjunction"
  | "other";

/** A topic under construction: the words it spans and how each is written. */
interface Phrase {
  /** Index after its last word. */
  end: number;
  parts: string[];
}

/**
 * Names the topic of a user message as a noun phrase that reads inside the
 * reply's sentences ("That is a good question about {topic}."), from
 * compromise's part-of-speech tags:
 *
 * - an action the user asks about becomes a gerund phrase with its object:
 *   "Should I vote?" → "voting", "How do I keep my tomatoes happy?" →
 *   "keeping your tomatoes happy", "Tell me how to get rid of slugs." →
 *   "getting rid of slugs";
 * - otherwise the first noun phrase, with what binds to it ("the history of
 *   ancient Rome", "a good compost for pots"), and the place or time its
 *   verb is set in ("Which herbs grow well on a balcony?" → "herbs on a
 *   balcony");
 * - verbs and nouns that only frame the request are looked through: "Tell
 *   me about the API limits" → "the API limits", "Any tips on pruning
 *   roses?" → "pruning roses".
 *
 * Possessives take the persona's side ("my password" → "your password"),
 * asking determiners go ("which", "any"), a sentence's capital is lowered
 * unless the word is a name; a greeting and a name it addresses ("Hi
 * Juniper!") are not topics. At most seven words, never across punctuation;
 * the first sentence that has a topic gives it. The message is read up to
 * 600 characters (see {@link readSentences}).
 *
 * @param text - the user's message (any Unicode)
 * @returns the topic, or `""` when the message names nothing (greetings, "How are you?", emoji)
 * @example
 * extractTopic("Can you help me reset my password?"); // "resetting your password"
 * extractTopic("What is the history of ancient Rome?"); // "the history of ancient Rome"
 */
export function extractTopic(text: string): string {
  return topicOf(readSentences(text));
}

/**
 * {@link extractTopic} of a message already read by {@link readSentences}
 * (the composer reads a message once for its intent and its topic).
 *
 * @param sentences - the message's sentences
 * @returns the topic, or `""`
 */
export function topicOf(sentences: readonly (readonly Word[])[]): string {
  for (const sentence of sentences) {
    const phrase = topicOfSentence(sentence);
    if (phrase !== undefined) return phrase.parts.join(" ");
  }
  return "";
}

/** The topic of one sentence, read left to right: the first action or noun phrase that is not a frame. */
function topicOfSentence(words: readonly Word[]): Phrase | undefined {
  let index = skipAddress(words);
  while (index < words.length) {
    const word = words[index] as Word;
    const kind = kindOf(word);
    if (kind === "gerund" || kind === "verb") {
      if (
        FRAMING_VERBS.has(infinitiveOf(word)) ||
        (kind === "verb" && gerundFollows(words, index))
      ) {
        index += 1;
        continue;
      }
      return verbPhrase(words, index);
    }
    if (kind === "noun" || kind === "modifier" || kind === "determiner" || kind === "possessive") {
      const core = nounCore(words, index, MAXIMUM_TOPIC_WORDS);
      if (core === undefined) {
        index += 1;
        continue;
      }
      const head = words[core.end - 1] as Word;
      if (FRAMING_NOUNS.has(singularOf(head))) {
        // "tips on pruning roses": go on after the preposition; "any tips?" has no topic.
        const next = words[core.end];
        const bound = next !== undefined && ABOUT.has(next.normal) && head.after === "";
        index = bound ? core.end + 1 : core.end;
        continue;
      }
      const phrase = nounPhrase(words, index, MAXIMUM_TOPIC_WORDS) ?? core;
      return withSetting(words, phrase);
    }
    index += 1;
  }
  return undefined;
}

/**
 * Where a sentence's content starts: after a greeting or interjection
 * ("Hi", "Good morning", "Please" stays) and a name it addresses ("Hi
 * Juniper!", "Juniper, which herbs…?").
 */
function skipAddress(words: readonly Word[]): number {
  let index = 0;
  for (;;) {
    const word = words[index];
    if (word === undefined) return index;
    const interjection = word.tags.has("Expression") && word.normal !== "please";
    const greeting = word.normal === "good" && TIMES_OF_DAY.has(words[index + 1]?.normal ?? "");
    if (greeting) index += 2;
    else if (interjection) index += 1;
    else break;
  }
  // A capitalized name, then a comma or the sentence's end, then (if
  // anything) a question, a pronoun or a verb: it is the person addressed.
  let end = index;
  while (end < words.length && /^\p{Lu}/u.test(words[end]?.text ?? "")) {
    const word = words[end] as Word;
    end += 1;
    if (word.after === "") continue;
    const next = words[end];
    if (next === undefined) return end;
    const clause =
      next.tags.has("QuestionWord") ||
      next.tags.has("Expression") ||
      ["pronoun", "auxiliary", "verb"].includes(kindOf(next));
    return word.after === "," && clause ? end : index;
  }
  // "Hi Juniper" without punctuation: the name ends the sentence.
  return end === words.length && index > 0 ? end : index;
}

/** Whether a gerund follows the verb at `index`, past adverbs ("went hiking", "started slowly growing"). */
function gerundFollows(words: readonly Word[], index: number): boolean {
  let next = index + 1;
  while (words[next]?.tags.has("Adverb") === true) next += 1;
  return words[next] !== undefined && kindOf(words[next] as Word) === "gerund";
}

/**
 * A verb and what it takes, as a gerund phrase: the verb's "-ing" form, a
 * particle ("set up"), an object (a noun phrase or a pronoun), an adjective
 * that completes the object ("happy"), then one phrase bound by a
 * preposition ("into a flat", "of slugs").
 */
function verbPhrase(words: readonly Word[], start: number): Phrase {
  const parts = [gerundOf(words[start] as Word)];
  let end = start + 1;
  const open = (): boolean => (words[end - 1] as Word).after === "";
  while (open() && words[end]?.tags.has("Particle") === true) {
    parts.push(writtenAt(words, end));
    end += 1;
  }
  if (open() && words[end] !== undefined) {
    const next = words[end] as Word;
    const object = OBJECT_PRONOUNS.get(next.normal);
    if (kindOf(next) === "pronoun" && object !== undefined) {
      parts.push(object);
      end += 1;
    } else {
      const phrase = nounPhrase(words, end, MAXIMUM_TOPIC_WORDS - parts.length);
      if (phrase !== undefined) {
        parts.push(...phrase.parts);
        end = phrase.end;
        // An adjective that completes the object ends the clause: "keeping your tomatoes happy?".
        const complement = words[end];
        const completes =
          complement?.tags.has("Adjective") === true &&
          (complement.after !== "" || end + 1 === words.length);
        if (open() && completes && parts.length < MAXIMUM_TOPIC_WORDS) {
          parts.push(writtenAt(words, end));
          end += 1;
        }
      }
    }
  }
  const bound = open() ? boundPhrase(words, end, MAXIMUM_TOPIC_WORDS - parts.length) : undefined;
  if (bound !== undefined) return { end: bound.end, parts: [...parts, ...bound.parts] };
  return { end, parts };
}

/**
 * A subject's phrase with the setting of its verb: "herbs" in "herbs grow
 * well on a balcony" becomes "herbs on a balcony". A verb with an object
 * ("roses have black spots") or a linking verb ("politics is …") adds
 * nothing.
 */
function withSetting(words: readonly Word[], phrase: Phrase): Phrase {
  let index = phrase.end;
  if ((words[index - 1] as Word).after !== "") return phrase;
  const verb = words[index];
  if (verb === undefined || (kindOf(verb) !== "verb" && kindOf(verb) !== "gerund")) return phrase;
  index += 1;
  while (words[index - 1]?.after === "" && words[index]?.tags.has("Adverb") === true) index += 1;
  const preposition = words[index];
  if (words[index - 1]?.after !== "" || preposition === undefined) return phrase;
  if (!SETTING.has(preposition.normal)) return phrase;
  const setting = nounPhrase(words, index + 1, MAXIMUM_TOPIC_WORDS - phrase.parts.length - 1);
  if (setting === undefined) return phrase;
  return {
    end: setting.end,
    parts: [...phrase.parts, preposition.normal, ...setting.parts],
  };
}

/**
 * A noun phrase starting at `start`: an optional determiner or possessive,
 * modifiers, and nouns, ending on a noun ("a good compost", "the follow-up
 * call"), then what binds to it: "of" phrases, one "and"/"or" phrase, one
 * other prepositional phrase. `undefined` when no noun is there.
 */
function nounPhrase(words: readonly Word[], start: number, budget: number): Phrase | undefined {
  const core = nounCore(words, start, budget);
  if (core === undefined) return undefined;
  let phrase = core;
  let joined = false;
  let bound = false;
  for (;;) {
    const last = words[phrase.end - 1] as Word;
    const next = words[phrase.end];
    if (last.after !== "" || next === undefined) return phrase;
    const room = budget - phrase.parts.length;
    let extension: Phrase | undefined;
    if (next.normal === "of") {
      extension = boundPhrase(words, phrase.end, room);
    } else if (!joined && (next.normal === "and" || next.normal === "or")) {
      const other = nounCore(words, phrase.end + 1, room - 1);
      if (other !== undefined) extension = { end: other.end, parts: [next.normal, ...other.parts] };
      joined = true;
    } else if (!bound && ATTACHING.has(next.normal)) {
      extension = boundPhrase(words, phrase.end, room);
      bound = true;
    }
    if (extension === undefined) return phrase;
    phrase = { end: extension.end, parts: [...phrase.parts, ...extension.parts] };
  }
}

/** A preposition and its noun phrase ("of slugs", "into a flat"), or a preposition and a gerund phrase ("for growing herbs"). */
function boundPhrase(words: readonly Word[], start: number, budget: number): Phrase | undefined {
  const preposition = words[start];
  if (preposition === undefined || !ATTACHING.has(preposition.normal) || budget < 2) {
    return undefined;
  }
  const object =
    words[start + 1] !== undefined && kindOf(words[start + 1] as Word) === "gerund"
      ? verbPhrase(words, start + 1)
      : nounPhrase(words, start + 1, budget - 1);
  if (object === undefined || object.parts.length + 1 > budget) return undefined;
  return { end: object.end, parts: [preposition.normal, ...object.parts] };
}

/** Determiner, modifiers and nouns, ending on the last noun within the budget. */
function nounCore(words: readonly Word[], start: number, budget: number): Phrase | undefined {
  const parts: string[] = [];
  let index = start;
  const first = words[index];
  if (first === undefined) return undefined;
  const firstKind = kindOf(first);
  if (firstKind === "determiner" || firstKind === "possessive") {
    const possessive = POSSESSIVES.get(first.normal);
    if (possessive !== undefined) parts.push(possessive);
    else if (!ASKING_DETERMINERS.has(first.normal)) parts.push(writtenAt(words, index));
    if (first.after !== "") return undefined;
    index += 1;
  }
  let end = -1;
  let endParts = 0;
  while (index < words.length && parts.length < budget) {
    const word = words[index] as Word;
    if (word.text === "" || word.text.length > MAXIMUM_WORD_LENGTH) break;
    const kind = kindOf(word);
    const compound = word.tags.has("Hyphenated");
    if (kind === "noun" || (compound && nextIsNoun(words, index))) {
      parts.push(writtenAt(words, index));
      if (kind === "noun") {
        end = index + 1;
        endParts = parts.length;
      }
    } else if (kind === "modifier" || (kind === "gerund" && parts.length > 0) || compound) {
      parts.push(writtenAt(words, index));
    } else {
      break;
    }
    if (word.after !== "") break;
    index += 1;
  }
  if (end < 0) return undefined;
  return { end, parts: parts.slice(0, endParts) };
}

/** Whether the word after `index` is a noun (a hyphenated compound before one is a modifier: "follow-up call"). */
function nextIsNoun(words: readonly Word[], index: number): boolean {
  const next = words[index + 1];
  return (words[index] as Word).after === "" && next !== undefined && kindOf(next) === "noun";
}

/** How a word takes part in a phrase, from its tags. */
function kindOf(word: Word): Kind {
  const { tags, normal } = word;
  if (POSSESSIVES.has(normal) || (tags.has("Possessive") && tags.has("Pronoun"))) {
    return "possessive";
  }
  if (tags.has("Pronoun")) return "pronoun";
  // "up" in "what's up", "set up": part of a verb, never a topic of its own.
  if (tags.has("Particle")) return "other";
  if (tags.has("Determiner")) return "determiner";
  if (tags.has("Modal") || tags.has("Copula") || tags.has("Auxiliary") || tags.has("Negative")) {
    return "auxiliary";
  }
  if (tags.has("Gerund")) return "gerund";
  if (tags.has("Verb")) return "verb";
  if (tags.has("Preposition") || normal === "to") return "preposition";
  if (tags.has("Conjunction")) return "conjunction";
  // "yesterday" and "today" are dates, not things; "weekend" and "May" are nouns too.
  if (tags.has("Noun") && !tags.has("QuestionWord")) return "noun";
  if (tags.has("Adjective") || tags.has("Value")) return "modifier";
  return "other";
}

/** The word at `index` as the topic writes it: a sentence's capital lowered unless it is a name ("API", "Lisbon"). */
function writtenAt(words: readonly Word[], index: number): string {
  const word = words[index] as Word;
  if (index > 0 || word.tags.has("ProperNoun") || word.tags.has("Acronym")) return word.text;
  const rest = word.text.slice(1);
  if (rest !== rest.toLowerCase()) return word.text;
  return word.text.charAt(0).toLowerCase() + rest;
}
