import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PersonaTraits, personaTraitsSchema } from "../../personas/persona-traits.js";
import { composeReply, readTurn } from "./compose-reply.js";
import { hasContraction } from "./contractions.js";
import { createSeededRandom } from "./seeded-random.js";
import { HUMOUR_ASIDES, STANCE_SENTENCES } from "./voice-phrasebook.js";

type Style = Partial<PersonaTraits["communicationStyle"]>;
type Personality = Partial<PersonaTraits["personality"]>;

function makeTraits(
  style: Style = {},
  personality: Personality = {},
  extra: { avoidTopics?: string[]; signaturePhrases?: string[] } = {},
): PersonaTraits {
  return personaTraitsSchema.parse({
    personality,
    communicationStyle: style,
    behaviouralGuidelines: { role: "Friendly tutor", avoidTopics: extra.avoidTopics ?? [] },
    signaturePhrases: extra.signaturePhrases ?? [],
  });
}

/** Replies for seeds 0…count-1 (the variant follows the seed). */
function replies(traits: PersonaTraits, userText: string, count = 25): string[] {
  const turn = readTurn(traits, userText);
  return Array.from({ length: count }, (_, seed) =>
    composeReply({ traits, turn, random: createSeededRandom(seed), variant: seed }),
  );
}

function sentenceCount(text: string): number {
  return text.split(/(?<=[.!?])\s+/).length;
}

const INPUTS = [
  "Hi!",
  "bye",
  "Thanks a lot",
  "Sorry about that.",
  "What is the history of ancient Rome?",
  "Can you help me reset my password?",
  "I went hiking in the Alps yesterday.",
  "😀",
];

describe("readTurn", () => {
  const traits = makeTraits({}, {}, { avoidTopics: ["Politics."] });

  it("reads the intent and a short topic", () => {
    expect(readTurn(traits, "What is the history of ancient Rome?")).toEqual({
      intent: "question",
      topic: "the history of ancient Rome",
      subject: "Rome",
    });
    expect(readTurn(traits, "Thanks for the tea")).toEqual({
      intent: "thanks",
      topic: "",
      subject: "",
    });
  });

  it("takes the avoided topic as written by the operator, tidied", () => {
    expect(readTurn(traits, "any politics news?")).toEqual({
      intent: "avoided-topic",
      topic: "politics",
      subject: "",
    });
  });

  it("names the avoided topic when the message only says a word of it", () => {
    expect(readTurn(traits, "Should I vote?")).toEqual({
      intent: "avoided-topic",
      topic: "politics",
      subject: "",
    });
  });

  it("reads a request in the imperative, with a noun phrase for its topic", () => {
    expect(readTurn(traits, "Tell me how to get rid of slugs.")).toEqual({
      intent: "help",
      topic: "getting rid of slugs",
      subject: "",
    });
  });
});

describe("composeReply", () => {
  it("is deterministic for the same seed and variant", () => {
    const traits = makeTraits({}, { humourStyle: "witty" }, { signaturePhrases: ["Onward"] });
    expect(replies(traits, "How do tides work?")).toEqual(replies(traits, "How do tides work?"));
  });

  it("writes plain, well-formed sentences for every intent", () => {
    const traits = makeTraits({ verbosity: "elaborate" }, { humourStyle: "playful" });
    for (const input of INPUTS) {
      for (const reply of replies(traits, input, 10)) {
        expect(reply).toMatch(/^[A-Z].*[.!?]$/);
        expect(reply).not.toMatch(/\s{2}|[{}"“”]|^\w+:/);
      }
    }
  });

  it("property: writes whole sentences for any message", () => {
    const traits = makeTraits({ verbosity: "elaborate", questionFrequency: "often" });
    const word = fc.stringMatching(/^[A-Za-z'-]{1,10}$/u);
    const sentence = fc
      .array(word, { minLength: 1, maxLength: 20 })
      .chain((words) =>
        fc.constantFrom(".", "?", "!", ",", "").map((mark) => words.join(" ") + mark),
      );
    const message = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 200 }),
      fc.array(sentence, { maxLength: 5 }).map((sentences) => sentences.join(" ")),
    );
    fc.assert(
      fc.property(message, fc.nat(), (text, seed) => {
        const turn = readTurn(traits, text);
        const reply = composeReply({
          traits,
          turn,
          random: createSeededRandom(seed),
          variant: seed,
        });
        expect(reply).toMatch(/^\p{Lu}.*[.!?]$/u);
        expect(reply).not.toMatch(/\s{2}|\s[.,!?]|[{}]/u);
      }),
      { numRuns: 200 },
    );
  });

  it("never contracts for a formal persona and always does for a casual one", () => {
    const formal = makeTraits({ formality: "formal", verbosity: "elaborate" });
    const casual = makeTraits({ formality: "casual", verbosity: "concise" });
    for (const input of INPUTS) {
      for (const reply of replies(formal, input, 10)) {
        expect(hasContraction(reply), reply).toBe(false);
        expect(reply).not.toMatch(/\b(Hey|Got it)\b/);
      }
      for (const reply of replies(casual, input, 10))
        expect(hasContraction(reply), reply).toBe(true);
    }
  });

  it("writes concise replies shorter than elaborate ones for the same input", () => {
    const concise = makeTraits({ verbosity: "concise", questionFrequency: "rarely" });
    const elaborate = makeTraits({ verbosity: "elaborate", questionFrequency: "rarely" });
    for (const input of INPUTS) {
      const short = replies(concise, input, 10);
      const long = replies(elaborate, input, 10);
      short.forEach((reply, index) => {
        expect(reply.length).toBeLessThan((long[index] as string).length);
        expect(sentenceCount(reply)).toBeLessThanOrEqual(2);
        expect(sentenceCount(long[index] as string)).toBeGreaterThanOrEqual(4);
      });
    }
  });

  it("declines an avoided topic in character, naming the role", () => {
    const avoid = { avoidTopics: ["politics"] };
    const traits = makeTraits({ formality: "formal" }, { humourStyle: "playful" }, avoid);
    for (const reply of replies(traits, "What do you think about Politics these days?")) {
      expect(reply).toContain("your friendly tutor");
      expect(reply).toContain("politics");
      expect(reply).toMatch(/rather not|outside|not something|pass on|do not discuss/);
      for (const aside of HUMOUR_ASIDES.playful) expect(reply).not.toContain(aside.slice(0, -1));
    }
  });

  it("ends with a question when questions come often", () => {
    const traits = makeTraits({ questionFrequency: "often", verbosity: "elaborate" });
    for (const input of INPUTS) {
      for (const reply of replies(traits, input, 10)) expect(reply.endsWith("?"), reply).toBe(true);
    }
    const rare = replies(makeTraits({ questionFrequency: "rarely" }), "I like tea.", 40);
    expect(rare.filter((reply) => reply.endsWith("?")).length).toBeLessThan(10);
  });

  it("exclaims only when expressive", () => {
    const expressive = makeTraits(
      { emotionalExpression: "expressive" },
      { emotionalTone: "upbeat" },
    );
    const reserved = makeTraits({ emotionalExpression: "reserved", verbosity: "elaborate" });
    expect(replies(expressive, "Hi!").every((reply) => reply.includes("!"))).toBe(true);
    for (const input of INPUTS) {
      for (const reply of replies(reserved, input, 10)) expect(reply).not.toContain("!");
    }
  });

  it("hedges when humble and is direct when assertive", () => {
    const matches = (confidence: "humble" | "assertive", reply: string) =>
      STANCE_SENTENCES[confidence].some((sentence) => reply.includes(sentence.slice(0, 12)));
    // Formal, so the stance sentences keep their full forms for the comparison.
    const humble = makeTraits({ formality: "formal" }, { confidence: "humble" });
    const assertive = makeTraits({ formality: "formal" }, { confidence: "assertive" });
    for (const reply of replies(humble, "Why is the sky blue?")) {
      expect(matches("humble", reply), reply).toBe(true);
      expect(matches("assertive", reply), reply).toBe(false);
    }
    for (const reply of replies(assertive, "Can you help with my essay?")) {
      expect(matches("assertive", reply), reply).toBe(true);
      expect(matches("humble", reply), reply).toBe(false);
    }
  });

  it("adds humour asides and signature phrases sometimes, never when concise", () => {
    const signature = { signaturePhrases: ["Stay curious"] };
    const chatty = makeTraits({ verbosity: "elaborate" }, { humourStyle: "dry" }, signature);
    const terse = makeTraits({ verbosity: "concise" }, { humourStyle: "dry" }, signature);
    const hasAside = (reply: string) =>
      HUMOUR_ASIDES.dry.some((aside) => reply.includes(aside.slice(0, 12)));
    const long = replies(chatty, "I painted my kitchen.", 40);
    expect(long.some(hasAside)).toBe(true);
    expect(long.some((reply) => reply.includes("Stay curious."))).toBe(true);
    expect(long.every((reply) => reply.includes("Stay curious."))).toBe(false);
    const short = replies(terse, "I painted my kitchen.", 40);
    expect(short.some((reply) => hasAside(reply) || reply.includes("Stay curious"))).toBe(false);
  });

  it("greets more often when extraverted than when introverted", () => {
    const greets = (reply: string) => /^(Hello|Hi|Hey)\b/.test(reply);
    const outgoing = replies(makeTraits({}, { extraversion: "extraverted" }), "I like tea.", 60);
    const quiet = replies(makeTraits({}, { extraversion: "introverted" }), "I like tea.", 60);
    expect(outgoing.filter(greets).length).toBeGreaterThan(quiet.filter(greets).length);
  });

  it("reflects a short topic from the message, not the whole message", () => {
    const traits = makeTraits({ verbosity: "concise" });
    const message = "What is the history of ancient Rome and why did the empire eventually fall?";
    for (const reply of replies(traits, message, 10)) {
      expect(reply).toContain("the history of ancient Rome");
      expect(reply).not.toContain("eventually fall");
    }
  });

  it("says the user's topic at most once and acknowledges the subject they name", () => {
    const message = "I'm planning a weekend trip to Lisbon. Any tips on what to see?";
    const occurrences = (text: string, phrase: string) => text.split(phrase).length - 1;
    for (const verbosity of ["concise", "balanced", "elaborate"] as const) {
      for (const questionFrequency of ["rarely", "sometimes", "often"] as const) {
        const traits = makeTraits({ verbosity, questionFrequency });
        for (const reply of replies(traits, message, 30)) {
          expect(occurrences(reply, "planning a weekend trip"), reply).toBeLessThanOrEqual(1);
          expect(occurrences(reply, "Lisbon"), reply).toBe(1);
        }
      }
    }
    // The same topic never comes back in a later sentence, whatever the input.
    const chatty = makeTraits({ verbosity: "elaborate", questionFrequency: "often" });
    for (const reply of replies(chatty, "How do I keep my tomatoes happy?", 30)) {
      expect(occurrences(reply, "keeping your tomatoes happy"), reply).toBeLessThanOrEqual(1);
    }
  });

  it("does not invent a subject or repeat one the topic already holds", () => {
    const traits = makeTraits({ verbosity: "elaborate" });
    for (const reply of replies(traits, "What is the history of ancient Rome?", 20)) {
      expect(reply.split("Rome").length - 1, reply).toBe(1);
    }
    for (const reply of replies(traits, "how do tides work?", 20)) {
      expect(reply).not.toMatch(/You mentioned|look anything up about/u);
    }
  });

  it("uses different core sentences for different variants", () => {
    const traits = makeTraits({ verbosity: "concise", questionFrequency: "rarely" });
    const random = () => createSeededRandom(5);
    const texts = [0, 1, 2, 3, 4].map((variant) =>
      composeReply({ traits, turn: readTurn(traits, "Hello"), random: random(), variant }),
    );
    expect(new Set(texts).size).toBe(5);
  });
});
