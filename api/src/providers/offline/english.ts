import nlp from "compromise/two";

/*
 * The offline engine's reading of English, the one place that talks to
 * `compromise` (a rule-based tagger in plain JavaScript: no model files, no
 * downloads), in its `two` build: tokenizer, part-of-speech tagger, match
 * syntax and inflections, without the phrase-level API this engine does not
 * use. The library's lexicon loads once, with this module, in about 0.3 s;
 * the offline provider imports the composer only when a first reply is
 * asked for, so commands that never compose one do not pay for it.
 */

/** One word of a message, as the part-of-speech tagger read it. */
export interface Word {
  /**
   * The word as written; the parts of a hyphenated compound are one word
   * ("follow-up"). `""` for a word a contraction only implies (the "is" of
   * "what's"), which still counts for grammar.
   */
  text: string;
  /** Lowercase, straight apostrophes: the form for look-ups. */
  normal: string;
  /** compromise's tags: "Noun", "Plural", "ProperNoun", "Verb", "Gerund", "Imperative", "Copula", … */
  tags: ReadonlySet<string>;
  /** The punctuation written right after the word, spaces removed ("", ",", "?"). */
  after: string;
}

/** A message is read up to this many characters: the topic is in its first sentences, and the tagger's cost grows with the text. */
const MAXIMUM_READ_CHARACTERS = 600;

// compromise exposes its inflection functions through `nlp.methods()`, typed
// only as `object`; these are the ones used here.
type Conjugation = Partial<Record<"Infinitive" | "PastTense" | "PresentTense" | "Gerund", string>>;
interface Inflections {
  two: {
    transform: {
      noun: {
        toPlural(noun: string, model: object): string;
        toSingular(noun: string, model: object): string;
      };
      verb: {
        conjugate(infinitive: string, model: object): Conjugation;
        toInfinitive(verb: string, model: object, tense?: string): string;
      };
    };
  };
}

// Slips the tagger makes in the questions and requests users write, with
// the tag that corrects them (compromise's match syntax; `[…]` marks the
// word retagged): "How do [tides] work?", "What [flowers] bloom in winter?",
// "…how composting [works]", "…why my roses [wilt]", "How does photosynthesis
// [work]?", "Did the frost [kill] my dahlias?", "[Water] the roses."
const TAGGER_CORRECTIONS: ReadonlyArray<readonly [pattern: string, tag: string]> = [
  ["(do|does|did) [#PresentTense] (#Verb|#Noun)", "Plural"],
  ["(which|what|whose) [#PresentTense] #Noun #Preposition", "Plural"],
  ["(which|what|whose) #Plural [#Noun] #Preposition", "Infinitive"],
  ["(do|does|did) #Plural [#Noun]", "Infinitive"],
  [
    "(do|does|did) (#Determiner|#Possessive)? #Adjective* #Noun [#Singular] (#Determiner|#Possessive)",
    "Infinitive",
  ],
  ["(do|does|did) (#Determiner|#Possessive)? #Adjective* #Noun [#Singular]$", "Infinitive"],
  [
    "(how|why|where|when) (#Determiner|#Possessive)? (#Gerund|#Singular) [#Plural]$",
    "PresentTense",
  ],
  [
    "(how|why|where|when) (#Determiner|#Possessive)? #Adjective? #Plural [#Singular]$",
    "Infinitive",
  ],
  ["^please? [(#Noun && !#Plural)] (#Determiner|#Possessive)", "Imperative"],
];

// Parsed once: compromise otherwise re-parses a match string on every call,
// which cost about a fifth of each reading.
const COMPILED_CORRECTIONS = TAGGER_CORRECTIONS.map(
  ([pattern, tag]) => [nlp.parseMatch(pattern), tag] as const,
);
const MODEL = nlp.model();
const TRANSFORM = (nlp.methods() as Inflections).two.transform;
// A gerund is tagged PresentTense too, so it is looked for first.
const VERB_TENSES = ["Gerund", "Participle", "PastTense", "PresentTense"] as const;

/**
 * Reads a message into sentences of tagged words (compromise's sentence
 * boundaries and part-of-speech tags). Only the first 600 characters are
 * read, cut at a space, so the cost is bounded whatever the message's size.
 *
 * @param text - the message (any Unicode; text without letters gives no sentences)
 * @returns the sentences in order, each a non-empty list of words
 * @example
 * readSentences("Should I vote?"); // [[Should, I, vote]] with tags Modal, Pronoun, Infinitive
 */
export function readSentences(text: string): Word[][] {
  const readable = readablePart(text);
  if (!/\p{L}/u.test(readable)) return [];
  const sentences: Word[][] = [];
  const document = nlp(readable);
  for (const [pattern, tag] of COMPILED_CORRECTIONS) document.match(pattern, 0).tag(tag);
  for (const terms of document.docs) {
    const words: Word[] = [];
    for (const term of terms) {
      const word: Word = {
        text: term.text,
        normal: term.normal.replaceAll("’", "'"),
        tags: term.tags ?? new Set(),
        after: term.post.replace(/\s+/gu, ""),
      };
      const previous = words.at(-1);
      if (word.text !== "" && !/[\p{L}\p{N}]/u.test(word.text)) {
        // A term without a letter or digit ("'", "&") is punctuation: it ends the word before it.
        if (previous !== undefined) previous.after = `${previous.after}${word.text}${word.after}`;
        continue;
      }
      // compromise splits "follow-up" in two; a compound is one word, tagged as its last part.
      if (previous !== undefined && previous.after === "-" && word.text !== "") {
        words[words.length - 1] = {
          text: `${previous.text}-${word.text}`,
          normal: `${previous.normal}-${word.normal}`,
          tags: new Set([...word.tags, "Hyphenated"]),
          after: word.after,
        };
      } else {
        words.push(word);
      }
    }
    if (words.length > 0) sentences.push(words);
  }
  return sentences;
}

/** The start of a text the tagger reads: whole if short, else cut at the last space before the limit. */
function readablePart(text: string): string {
  if (text.length <= MAXIMUM_READ_CHARACTERS) return text;
  const head = text.slice(0, MAXIMUM_READ_CHARACTERS);
  const space = head.search(/\s\S*$/u);
  return space > 0 ? head.slice(0, space) : head;
}

/**
 * The verb's dictionary form: "voted" → "vote", "grew" → "grow", "is" →
 * "be"; a word that is not a verb comes back lowercased.
 *
 * @param word - a word as {@link readSentences} tagged it
 */
export function infinitiveOf(word: Word): string {
  const tense = VERB_TENSES.find((tag) => word.tags.has(tag));
  if (tense === undefined || word.tags.has("Infinitive")) return word.normal;
  return TRANSFORM.verb.toInfinitive(word.normal, MODEL, tense) || word.normal;
}

/**
 * The gerund ("-ing" form) of a verb, which reads as a noun phrase inside a
 * sentence: "vote" → "voting", "plan" → "planning", "got" → "getting".
 *
 * @param word - a verb as {@link readSentences} tagged it, or an infinitive
 * @example
 * gerundOf("plan"); // "planning"
 */
export function gerundOf(word: Word | string): string {
  if (typeof word !== "string" && word.tags.has("Gerund")) return word.normal;
  const infinitive = typeof word === "string" ? word.toLowerCase() : infinitiveOf(word);
  const gerund = TRANSFORM.verb.conjugate(infinitive, MODEL).Gerund;
  if (gerund?.endsWith("ing") === true) return gerund;
  // compromise leaves a few verbs it does not know unchanged ("repot").
  return infinitive.endsWith("e") && !infinitive.endsWith("ee")
    ? `${infinitive.slice(0, -1)}ing`
    : `${infinitive}ing`;
}

/**
 * A noun's singular ("tips" → "tip", "leaves" → "leaf"); any other word
 * comes back in its look-up form.
 *
 * @param word - a word as {@link readSentences} tagged it
 */
export function singularOf(word: Word): string {
  if (!word.tags.has("Plural")) return word.normal;
  return TRANSFORM.noun.toSingular(word.normal, MODEL) || word.normal;
}

/**
 * The forms a word takes in running text, by compromise's inflections: its
 * plural, its singular when the tagger reads it as a plural, and the tenses
 * of the verb it is or could be ("vote" → votes, voted, voting; "voting" →
 * vote, …). A form that is no English word ("electioned") is harmless: it is
 * only ever looked for. Lowercase; the word itself first.
 *
 * @param word - one word, lowercase ("election", "vote")
 * @example
 * wordForms("vote"); // ["vote", "votes", "voted", "voting"]
 */
export function wordForms(word: string): string[] {
  const forms = new Set([word]);
  const tagged: Word = {
    text: word,
    normal: word,
    tags: nlp(word).docs[0]?.[0]?.tags ?? new Set<string>(),
    after: "",
  };
  forms.add(TRANSFORM.noun.toPlural(word, MODEL));
  if (tagged.tags.has("Plural")) forms.add(TRANSFORM.noun.toSingular(word, MODEL));
  const conjugation = TRANSFORM.verb.conjugate(infinitiveOf(tagged), MODEL);
  for (const form of Object.values(conjugation)) {
    // "will vote" and the like are not one word.
    if (form !== undefined && /^[\p{L}'-]+$/u.test(form)) forms.add(form);
  }
  return [...forms].filter((form) => form !== "").map((form) => form.toLowerCase());
}
