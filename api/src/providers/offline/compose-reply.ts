import type { PersonaTraits } from "../../personas/persona-traits.js";
import { readSentences, type Word } from "./english.js";
import { fillTemplate, type TemplateSlots } from "./fill-template.js";
import { classifyIntent, type Intent } from "./intent.js";
import {
  CORE_TEMPLATES,
  ELABORATIONS,
  FOLLOW_UPS,
  ROLE_SENTENCES,
  SUBJECT_SENTENCES,
  TOPIC_SENTENCES,
} from "./reply-phrasebook.js";
import { rolePhrase } from "./role-phrase.js";
import type { SeededRandom } from "./seeded-random.js";
import { extractSubject } from "./subject.js";
import { topicOf } from "./topic.js";
import { applyFormality, capitalizeFirst, exclaim, finishSentence } from "./voice.js";
import {
  ENGAGEMENT_SENTENCES,
  EXTRA_SENTENCES,
  FOLLOW_UP_PROBABILITY,
  GLAD,
  GOODBYE,
  HELLO,
  HUMOUR_ASIDES,
  OPENER_PROBABILITY,
  STANCE_SENTENCES,
  SURE,
  TONE_SENTENCES,
  UNDERSTOOD,
} from "./voice-phrasebook.js";

/** A user turn as the composer reads it, once for all candidates. */
export interface Turn {
  intent: Intent;
  /** A short topic from the message, or the avoided topic for a decline; `""` when none. */
  topic: string;
  /** The proper noun the message names ("Lisbon"), `""` when none (see {@link extractSubject}). */
  subject: string;
}

/** What {@link composeReply} needs for one candidate. */
export interface ComposeReplyOptions {
  /** The persona's validated traits. */
  traits: PersonaTraits;
  /** The last user turn, from {@link readTurn}. */
  turn: Turn;
  /** This candidate's randomness (seeded, so replies are reproducible). */
  random: SeededRandom;
  /** Which core template to use; consecutive values give different core sentences. */
  variant: number;
}

/** One sentence of a reply before rendering. */
interface Sentence {
  text: string;
  /** Sentences of feeling, which end in "!" for expressive personas. */
  emotive: boolean;
  /** The persona's own words (a signature phrase): no formality pass. */
  verbatim: boolean;
  /** Position in the reply; extras are chosen at random but kept in this order. */
  order: number;
}

const SOCIAL_INTENTS: ReadonlySet<Intent> = new Set(["greeting", "farewell", "thanks", "apology"]);
const TOPICAL_INTENTS: ReadonlySet<Intent> = new Set(["question", "help", "statement"]);

/** How likely a humour aside or a signature phrase is offered as an extra sentence. */
const HUMOUR_PROBABILITY = 0.6;
const SIGNATURE_PROBABILITY = 0.5;

/**
 * Reads the last user message, once for all candidates: its intent (see
 * {@link classifyIntent}), its topic as a noun phrase to reflect (see
 * {@link topicOf}) and the subject it names (see {@link extractSubject});
 * for a turn about one of the persona's `avoidTopics`, the topic is that
 * avoided topic and there is no subject. The message is tagged at most once
 * (see {@link readSentences}: under a millisecond for a short message), and
 * not at all for greetings, thanks and the like, or for a declined topic.
 *
 * @param traits - the persona's traits (for `avoidTopics`)
 * @param userText - the last user message, `""` when the history has none
 * @example
 * readTurn(traits, "What is the history of ancient Rome?");
 * // { intent: "question", topic: "the history of ancient Rome", subject: "Rome" }
 */
export function readTurn(traits: PersonaTraits, userText: string): Turn {
  // Tagged at most once, and only when a rule or the topic needs it (not for "Hi!").
  let sentences: Word[][] | undefined;
  const readMessage = (): Word[][] => {
    sentences ??= readSentences(userText);
    return sentences;
  };
  const reading = classifyIntent(userText, traits.behaviouralGuidelines.avoidTopics, readMessage);
  if (reading.intent === "avoided-topic") {
    return {
      intent: reading.intent,
      topic: tidyAvoidedTopic(reading.avoidedTopic ?? ""),
      subject: "",
    };
  }
  const topical = TOPICAL_INTENTS.has(reading.intent);
  const topic = topical ? topicOf(readMessage()) : "";
  const subject = topical ? extractSubject(userText) : "";
  return { intent: reading.intent, topic, subject };
}

/**
 * Composes one reply to a user turn from templates shaped by the persona's
 * traits: the intent decides the core sentence (an avoided topic gets a
 * polite decline naming the role); verbosity how many extra sentences follow
 * (concise none, balanced one, elaborate three; a greeting word and a
 * follow-up question may add one each); the other traits which ones and in
 * what words. The user's topic is said at most once (the core sentence
 * carries it; later sentences take their topic-free forms), and a subject
 * the message names that the topic lacks ("Lisbon") is acknowledged in a
 * sentence of its own. Plain text, whole sentences, no quotes or role
 * prefix. Deterministic for a given `random` and `variant`.
 *
 * @returns the reply text
 * @example
 * const turn = readTurn(traits, "Hi!");
 * composeReply({ traits, turn, random: createSeededRandom(1), variant: 0 });
 * // "Hey, it's good to hear from you."
 */
export function composeReply(options: ComposeReplyOptions): string {
  const { traits, turn, random, variant } = options;
  const { intent, topic, subject } = turn;
  const { personality, communicationStyle: style } = traits;
  const slots: TemplateSlots = {
    topic,
    subject,
    role: rolePhrase(traits.behaviouralGuidelines.role),
    hello: random.pick(HELLO[style.formality]),
    goodbye: random.pick(GOODBYE[style.formality]),
    sure: random.pick(SURE[style.formality]),
    understood: random.pick(UNDERSTOOD[style.formality]),
    glad: GLAD[personality.emotionalTone],
  };
  const make = (template: string, order: number, emotive = false): Sentence => ({
    text: fillTemplate(template, slots),
    emotive,
    verbatim: false,
    order,
  });
  const topicKey = topic === "" ? "withoutTopic" : "withTopic";
  const declining = intent === "avoided-topic";

  const sentences: Sentence[] = [];
  const opens =
    !SOCIAL_INTENTS.has(intent) &&
    !declining &&
    style.verbosity !== "concise" &&
    random.chance(OPENER_PROBABILITY[personality.extraversion]);
  if (opens) sentences.push(make("{hello}.", 0, true));
  const cores = CORE_TEMPLATES[intent][topicKey];
  const core = at(cores, variant);
  sentences.push(make(core, 1, SOCIAL_INTENTS.has(intent)));
  // The topic is said once: when the core says it, nothing after repeats it.
  const topicSaid = topic !== "" && core.includes("{topic}");
  const afterTopicKey = topicSaid ? "withoutTopic" : topicKey;
  // A named subject the topic does not already hold gets its own sentence
  // (it does not take the room of the extras).
  if (subject !== "" && !declining && !topic.includes(subject)) {
    sentences.push(make(at(SUBJECT_SENTENCES, variant), 1.5));
  }

  // Extras: the stance sentence first when there is room, the rest at random.
  const preferred: Sentence[] = [];
  const optional: Sentence[] = [];
  const stances = STANCE_SENTENCES[personality.confidence];
  if (TOPICAL_INTENTS.has(intent) && stances.length > 0) {
    preferred.push(make(random.pick(stances), 2));
  }
  if (topic !== "" && !declining) {
    // Drawn even when unused, so the other choices stay those of the same seed.
    const topicSentence = make(random.pick(TOPIC_SENTENCES), 3);
    if (!topicSaid) optional.push(topicSentence);
  }
  const elaborations = ELABORATIONS[intent];
  const firstElaboration = random.integer(0, elaborations.length - 1);
  const secondElaboration = firstElaboration + random.integer(1, elaborations.length - 1);
  optional.push(make(at(elaborations, firstElaboration), 4));
  optional.push(make(at(elaborations, secondElaboration), 5));
  if (!declining) {
    const feelings = TONE_SENTENCES[personality.emotionalTone];
    if (style.emotionalExpression !== "reserved" && feelings.length > 0) {
      optional.push(make(random.pick(feelings), 6, true));
    }
    optional.push(make(random.pick(ROLE_SENTENCES), 7));
    optional.push(make(random.pick(ENGAGEMENT_SENTENCES[personality.extraversion]), 8));
    if (personality.humourStyle !== "none" && random.chance(HUMOUR_PROBABILITY)) {
      const aside = random.pick(HUMOUR_ASIDES[personality.humourStyle]);
      optional.push(make(aside, 9, personality.humourStyle === "playful"));
    }
    if (traits.signaturePhrases.length > 0 && random.chance(SIGNATURE_PROBABILITY)) {
      const phrase = random.pick(traits.signaturePhrases).replace(/\s+/g, " ").trim();
      if (phrase !== "") {
        optional.push({ text: finishSentence(phrase), emotive: false, verbatim: true, order: 10 });
      }
    }
  }
  const [fewest, most] = EXTRA_SENTENCES[style.verbosity];
  const room = random.integer(fewest, most);
  const chosen = [...preferred, ...shuffle(optional, random)].slice(0, room);
  sentences.push(...chosen);

  if (random.chance(FOLLOW_UP_PROBABILITY[style.questionFrequency])) {
    sentences.push(make(random.pick(FOLLOW_UPS[intent][afterTopicKey]), 11));
  }
  return render(sentences, traits, random.chance(0.5));
}

/** Formats the chosen sentences in order: formality, exclamations, capitals. */
function render(sentences: Sentence[], traits: PersonaTraits, neutralContracts: boolean): string {
  const { formality, emotionalExpression } = traits.communicationStyle;
  return sentences
    .sort((left, right) => left.order - right.order)
    .map((sentence) => {
      let text = sentence.text;
      if (!sentence.verbatim) text = applyFormality(text, formality, neutralContracts);
      if (sentence.emotive && emotionalExpression === "expressive") text = exclaim(text);
      return capitalizeFirst(text);
    })
    .join(" ");
}

/** The item at `index`, wrapping around, so any variant picks a template. */
function at(items: readonly string[], index: number): string {
  return items[((index % items.length) + items.length) % items.length] ?? "";
}

/** A Fisher–Yates shuffle driven by the seeded random (a copy; the input is kept). */
function shuffle<Item>(items: readonly Item[], random: SeededRandom): Item[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = random.integer(0, index);
    [copy[index], copy[other]] = [copy[other] as Item, copy[index] as Item];
  }
  return copy;
}

/** An avoid topic as it reads inside a sentence: trimmed, no end punctuation, sentence case lowered. */
function tidyAvoidedTopic(topic: string): string {
  const trimmed = topic
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.!?,;:]+$/, "");
  const rest = trimmed.slice(1);
  return rest === rest.toLowerCase() ? trimmed.charAt(0).toLowerCase() + rest : trimmed;
}
