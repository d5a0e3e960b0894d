import type { PersonaTraits } from "../../personas/persona-traits.js";

/*
 * Words and sentences that carry a persona's voice, keyed by the trait that
 * selects them. Written in full forms like the reply phrasebook; the
 * formality pass contracts them for casual personas.
 */

type Personality = PersonaTraits["personality"];
type CommunicationStyle = PersonaTraits["communicationStyle"];
type Formality = CommunicationStyle["formality"];

/** Greeting words ({hello}) by formality. */
export const HELLO: Readonly<Record<Formality, readonly string[]>> = {
  casual: ["Hey", "Hi", "Hey there", "Hi there"],
  neutral: ["Hello", "Hi", "Hello there"],
  formal: ["Good day", "Greetings", "Hello"],
};

/** Leave-taking words ({goodbye}) by formality. */
export const GOODBYE: Readonly<Record<Formality, readonly string[]>> = {
  casual: ["See you", "Bye for now", "Catch you later", "Take it easy"],
  neutral: ["Goodbye", "Take care", "Bye for now"],
  formal: ["Farewell", "Goodbye", "Until next time"],
};

/** Agreement words ({sure}) by formality. */
export const SURE: Readonly<Record<Formality, readonly string[]>> = {
  casual: ["Sure", "Sure thing", "Absolutely"],
  neutral: ["Of course", "Sure"],
  formal: ["Certainly", "Of course"],
};

/** Acknowledgement words ({understood}) by formality. */
export const UNDERSTOOD: Readonly<Record<Formality, readonly string[]>> = {
  casual: ["Got it", "Okay"],
  neutral: ["Understood", "Okay"],
  formal: ["Understood", "Very well"],
};

/** The adjective of pleasure ({glad}) by emotional tone. */
export const GLAD: Readonly<Record<Personality["emotionalTone"], string>> = {
  warm: "glad",
  upbeat: "thrilled",
  neutral: "happy",
  cool: "pleased",
};

/**
 * A sentence of feeling by emotional tone, fit for any turn; left out for
 * reserved personas. A neutral tone has none.
 */
export const TONE_SENTENCES: Readonly<Record<Personality["emotionalTone"], readonly string[]>> = {
  warm: [
    "I really appreciate you reaching out.",
    "It is always a pleasure talking with you.",
    "I am glad you are here.",
  ],
  upbeat: [
    "I am in a great mood today.",
    "What a great day for a chat.",
    "I am excited to be talking with you.",
  ],
  neutral: [],
  cool: ["I will keep this straightforward.", "No need for any fuss."],
};

/** A sentence about talking with the user, by extraversion. */
export const ENGAGEMENT_SENTENCES: Readonly<
  Record<Personality["extraversion"], readonly string[]>
> = {
  extraverted: [
    "I love chatting about this kind of thing.",
    "I am always up for a good conversation.",
  ],
  balanced: ["I am happy to keep going.", "We can go as deep as you like."],
  introverted: ["Take your time; I am listening.", "I am listening."],
};

/** Small asides by humour style ("none" has none). */
export const HUMOUR_ASIDES: Readonly<
  Record<Exclude<Personality["humourStyle"], "none">, readonly string[]>
> = {
  dry: [
    "No dramatic plot twists here, I am afraid.",
    "I will try to keep the suspense manageable.",
    "Thrilling stuff, in a quiet sort of way.",
  ],
  playful: [
    "Consider this a tiny victory dance in text form.",
    "I would do a little drum roll if I could.",
    "Cue the confetti, metaphorically speaking.",
  ],
  witty: [
    "Brevity is the soul of wit, so I will try not to ramble.",
    "Consider it a small plot twist with a happy ending.",
    "Some questions deserve a drum roll; this one gets a polite nod.",
  ],
};

/**
 * A sentence that sets the stance of an answer, by confidence ("steady" has
 * none): hedges for humble personas, certainty for assertive ones.
 */
export const STANCE_SENTENCES: Readonly<Record<Personality["confidence"], readonly string[]>> = {
  humble: [
    "I may be missing something, of course.",
    "I could be wrong, so do double-check.",
    "I will do my best with it.",
  ],
  steady: [],
  assertive: ["I am confident about that.", "You can count on it.", "That much I am sure of."],
};

/** How often a reply ends with a follow-up question. */
export const FOLLOW_UP_PROBABILITY: Readonly<
  Record<CommunicationStyle["questionFrequency"], number>
> = { rarely: 0.1, sometimes: 0.4, often: 1 };

/** How many extra sentences follow the core, by verbosity: [fewest, most]. */
export const EXTRA_SENTENCES: Readonly<
  Record<CommunicationStyle["verbosity"], readonly [number, number]>
> = { concise: [0, 0], balanced: [1, 1], elaborate: [3, 3] };

/** How likely a greeting word opens a non-greeting reply, by extraversion. */
export const OPENER_PROBABILITY: Readonly<Record<Personality["extraversion"], number>> = {
  extraverted: 0.7,
  balanced: 0.3,
  introverted: 0.1,
};

/** Sentences that open a personified text, by formality. */
export const PERSONIFY_OPENERS: Readonly<Record<Formality, readonly string[]>> = {
  casual: ["Hey there.", "Hi.", "Quick one.", "So, here it is.", "Hey."],
  neutral: ["Hello.", "Hi there.", "Here is the update.", "A quick note.", "Hello there."],
  formal: [
    "Good day.",
    "Greetings.",
    "Please note the following.",
    "Allow me to share this.",
    "Hello.",
  ],
};

/** Sentences that close a personified text, by emotional tone. */
export const PERSONIFY_CLOSERS: Readonly<Record<Personality["emotionalTone"], readonly string[]>> =
  {
    warm: ["Thank you for reading.", "Take good care.", "I hope this helps."],
    upbeat: ["Exciting times.", "Onwards and upwards.", "Here is to what comes next."],
    neutral: ["That is all for now.", "Thanks for reading."],
    cool: ["That is all.", "Nothing further."],
  };
