import { describe, expect, it } from "vitest";
import { gerundOf, readSentences, singularOf, wordForms } from "./english.js";

describe("readSentences", () => {
  it("splits sentences and tags words", () => {
    const sentences = readSentences("Hi! Should I vote?");
    expect(sentences.map((words) => words.map((word) => word.text))).toEqual([
      ["Hi"],
      ["Should", "I", "vote"],
    ]);
    const vote = sentences[1]?.[2];
    expect(vote?.tags.has("Verb")).toBe(true);
    expect(vote?.after).toBe("?");
  });

  it("keeps a hyphenated compound as one word", () => {
    const [words] = readSentences("The follow-up call");
    expect(words?.map((word) => word.text)).toEqual(["The", "follow-up", "call"]);
  });

  it("corrects the tagger's slips in questions and requests", () => {
    const [question] = readSentences("How do tides work?");
    expect(question?.[2]?.tags.has("Noun")).toBe(true);
    expect(question?.[3]?.tags.has("Verb")).toBe(true);
    const [request] = readSentences("Water the roses.");
    expect(request?.[0]?.tags.has("Imperative")).toBe(true);
  });

  it("reads no sentence from text without letters, and only the start of a long text", () => {
    expect(readSentences("😀 42 !!")).toEqual([]);
    expect(readSentences("")).toEqual([]);
    const words = readSentences("tea ".repeat(8_000)).flat();
    expect(words.length).toBeLessThanOrEqual(150);
  });
});

describe("gerundOf", () => {
  it.each([
    ["keep", "keeping"],
    ["make", "making"],
    ["plan", "planning"],
    ["free", "freeing"],
  ])("%s → %s", (verb, expected) => {
    expect(gerundOf(verb)).toBe(expected);
  });

  it("takes a verb in any tense", () => {
    const [words] = readSentences("I voted, grew beans and got lost.");
    const verbs = (words ?? []).filter((word) => word.tags.has("Verb"));
    expect(verbs.map(gerundOf)).toEqual(["voting", "growing", "getting"]);
  });
});

describe("wordForms", () => {
  it("gives a noun's plural and a verb's tenses", () => {
    expect(wordForms("election")).toContain("elections");
    expect(wordForms("vote")).toEqual(expect.arrayContaining(["votes", "voted", "voting"]));
    expect(wordForms("voting")).toContain("vote");
    expect(wordForms("medicines")).toContain("medicine");
  });

  it("does not singularize a word that is not a plural", () => {
    expect(wordForms("news")).not.toContain("new");
  });
});

describe("singularOf", () => {
  it("singularizes plurals only", () => {
    const [words] = readSentences("Any tips on leaves or tea?");
    expect(words?.map(singularOf)).toEqual(["any", "tip", "on", "leaf", "or", "tea"]);
  });
});
