import type { Intent } from "./intent.js";

/*
 * Sentence templates of the offline composer, written in full forms ("I am",
 * "do not"): the formality pass contracts them for casual personas and leaves
 * them whole for formal ones. Every core template holds at least one pair
 * that contracts, so a casual reply always sounds casual. Slots: {topic} (a
 * noun or gerund phrase, so it reads after "about", "with" or "of": see
 * topic.ts), {role}, {hello}, {goodbye}, {sure}, {understood}, {glad}. Templates end in
 * "." (or "?" for follow-ups); expressive personas turn some "." into "!".
 */

/** Core templates of one intent: with a topic from the user's message, and without. */
export interface CoreTemplates {
  withTopic: readonly string[];
  withoutTopic: readonly string[];
}

const GREETING = [
  "{hello}, it is good to hear from you.",
  "{hello}, I am {glad} you stopped by.",
  "{hello}, it is nice to see you here.",
  "{hello}, I am here and ready when you are.",
  "{hello}, I am all ears.",
];

const FAREWELL = [
  "{goodbye}, I am {glad} we talked.",
  "{goodbye}, and I will be here whenever you need me.",
  "{goodbye}, it is always good to hear from you.",
  "{goodbye}, and do not hesitate to come back.",
  "{goodbye}, I will be around.",
];

const THANKS = [
  "You are very welcome.",
  "I am {glad} I could help.",
  "It is my pleasure.",
  "That is kind of you to say.",
  "You are welcome, it is what I am here for.",
];

const APOLOGY = [
  "No need to apologize, it is quite all right.",
  "That is perfectly fine.",
  "Do not worry about it at all.",
  "It is no trouble at all.",
  "There is nothing to forgive.",
];

/** The sentence that carries the reply, by intent; the composer rotates through them per candidate. */
export const CORE_TEMPLATES: Readonly<Record<Intent, CoreTemplates>> = {
  greeting: { withTopic: GREETING, withoutTopic: GREETING },
  farewell: { withTopic: FAREWELL, withoutTopic: FAREWELL },
  thanks: { withTopic: THANKS, withoutTopic: THANKS },
  apology: { withTopic: APOLOGY, withoutTopic: APOLOGY },
  question: {
    withTopic: [
      "That is a good question about {topic}.",
      "When it comes to {topic}, the short answer is that it depends on what you are after.",
      "I would start with the basics of {topic} and build from there.",
      "It is worth looking at {topic} one step at a time.",
      "Here is how I see {topic}: it is mostly about what you want to achieve.",
    ],
    withoutTopic: [
      "That is a good question.",
      "The short answer is that it depends on what you are after.",
      "I would start with the basics and build from there.",
      "It is worth taking this one step at a time.",
      "Here is how I see it: what matters most is what you want to achieve.",
    ],
  },
  help: {
    withTopic: [
      "I am {glad} to help with {topic}.",
      "We will sort out {topic} together.",
      "I can help with {topic}, and I will keep it simple.",
      "I am ready to help: {topic} is something we can work through.",
      "{sure}, I will walk you through {topic}.",
    ],
    withoutTopic: [
      "I am {glad} to help.",
      "We will sort this out together.",
      "I can help with that, and I will keep it simple.",
      "I am ready to help: this is something we can work through.",
      "{sure}, I will walk you through it.",
    ],
  },
  statement: {
    withTopic: [
      "That is interesting to hear about {topic}.",
      "I see what you mean about {topic}, and it is worth thinking about.",
      "I am keen to hear more about {topic}.",
      "{understood}, I will keep {topic} in mind.",
      "It is good to hear your thoughts on {topic}.",
    ],
    withoutTopic: [
      "That is interesting to hear.",
      "I see what you mean, and it is worth thinking about.",
      "I am following along.",
      "{understood}, I will keep that in mind.",
      "It is good to hear your thoughts on this.",
    ],
  },
  "avoided-topic": {
    withTopic: [
      "As {role}, I would rather not get into {topic}.",
      "That is outside what I cover as {role}, so I will leave {topic} aside.",
      "I am sorry, but {topic} is not something I discuss as {role}.",
      "As {role}, I will have to pass on {topic}.",
      "I do not discuss {topic} as {role}, I am afraid.",
    ],
    withoutTopic: [
      "As {role}, I would rather not get into that.",
      "That is outside what I cover as {role}, so I will leave it aside.",
      "I am sorry, but that is not something I discuss as {role}.",
      "As {role}, I will have to pass on that one.",
      "I do not discuss that as {role}, I am afraid.",
    ],
  },
};

/** Second sentences that expand on the core, by intent (at least three each). */
export const ELABORATIONS: Readonly<Record<Intent, readonly string[]>> = {
  greeting: [
    "I hope your day is going well.",
    "It is always nice to start a conversation.",
    "There is plenty of time, so no rush.",
  ],
  farewell: [
    "I hope the rest of your day goes well.",
    "It was a pleasure talking with you.",
    "You know where to find me.",
  ],
  thanks: [
    "It was no trouble at all.",
    "Helping out is the best part of what I do.",
    "I am always around if something else comes up.",
  ],
  apology: [
    "These things happen to everyone.",
    "We can simply carry on from here.",
    "It is already forgotten.",
  ],
  question: [
    "Let me break it down so it is easy to follow.",
    "The details matter here, so I will keep things precise.",
    "There is more than one way to look at it.",
  ],
  help: [
    "We can take it one step at a time.",
    "If something is unclear, just say so and I will adjust.",
    "It should not take long to get this sorted.",
  ],
  statement: [
    "That gives me useful context.",
    "It helps to know where you are coming from.",
    "Thank you for filling me in.",
  ],
  "avoided-topic": [
    "It falls outside what I cover here.",
    "I would rather keep our conversation on things I can genuinely help with.",
    "I hope you understand.",
    "There is plenty else we can talk about.",
  ],
};

/** Sentences that reflect the user's topic back (only when a topic was found). */
export const TOPIC_SENTENCES: readonly string[] = [
  "I have a few thoughts on {topic}.",
  "It makes sense to focus on {topic} for now.",
  "There is a lot to say about {topic}.",
];

/**
 * Sentences that acknowledge the subject a message names (a proper noun,
 * `{subject}`) when the reply's topic does not already hold it. The offline
 * engine knows nothing about the subject, and says so rather than inventing
 * facts.
 */
export const SUBJECT_SENTENCES: readonly string[] = [
  "You mentioned {subject}, and I will keep that in mind.",
  "I cannot look anything up about {subject} from here, but I am happy to think it through with you.",
  "{subject} is a good thing to focus on, so tell me what matters most to you about it.",
  "With {subject} in mind, it helps to start from what you already know.",
];

/** Sentences that name the persona's role, outside of declines. */
export const ROLE_SENTENCES: readonly string[] = [
  "As {role}, I am here whenever you need me.",
  "As {role}, this is exactly the kind of thing I am here for.",
  "As {role}, I am happy to keep going.",
];

/** Follow-up questions by intent; `{topic}` ones are used only when a topic was found. */
export const FOLLOW_UPS: Readonly<Record<Intent, CoreTemplates>> = {
  greeting: {
    withTopic: ["What is on your mind today?", "How can I help you today?"],
    withoutTopic: ["What is on your mind today?", "How can I help you today?"],
  },
  farewell: {
    withTopic: [
      "Is there anything else before you go?",
      "Will you come back and tell me how it went?",
    ],
    withoutTopic: ["Is there anything else before you go?", "Will you come back soon?"],
  },
  thanks: {
    withTopic: ["Is there anything else I can do for you?", "What else is on your list?"],
    withoutTopic: ["Is there anything else I can do for you?", "What else is on your list?"],
  },
  apology: {
    withTopic: ["Shall we pick up where we left off?", "What would you like to do next?"],
    withoutTopic: ["Shall we pick up where we left off?", "What would you like to do next?"],
  },
  question: {
    withTopic: [
      "What else would you like to know about {topic}?",
      "Which part of {topic} matters most to you?",
    ],
    withoutTopic: ["What would you like to focus on?", "Could you tell me a bit more?"],
  },
  help: {
    withTopic: [
      "What have you tried so far with {topic}?",
      "Where exactly are you stuck with {topic}?",
    ],
    withoutTopic: ["What have you tried so far?", "Where exactly are you stuck?"],
  },
  statement: {
    withTopic: ["Could you tell me a bit more about {topic}?", "What made you think of {topic}?"],
    withoutTopic: ["Could you tell me a bit more?", "What made you think of that?"],
  },
  "avoided-topic": {
    withTopic: [
      "Is there something else I can help you with?",
      "Shall we talk about something else?",
    ],
    withoutTopic: [
      "Is there something else I can help you with?",
      "Shall we talk about something else?",
    ],
  },
};
