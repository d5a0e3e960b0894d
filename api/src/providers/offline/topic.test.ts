import { describe, expect, it } from "vitest";
import { extractTopic, gerundOf } from "./topic.js";

describe("extractTopic", () => {
  it.each([
    ["What is the history of ancient Rome?", "the history of ancient Rome"],
    ["Can you help me reset my password?", "your password"],
    ["What is your refund policy?", "my refund policy"],
    ["I went hiking in the Alps yesterday.", "hiking in the Alps"],
    ["Pizza, pasta and wine", "pizza"],
    ["My e-mail bounced", "your e-mail bounced"],
    ["The follow-up call, then lunch", "the follow-up call"],
    ["Tell me about the API limits", "the API limits"],
    ["How do I keep my tomatoes happy?", "keeping your tomatoes happy"],
    ["Can you help me plan a herb garden?", "planning a herb garden"],
    ["How should I prune roses?", "pruning roses"],
  ])("%j → %j", (input, expected) => {
    expect(extractTopic(input)).toBe(expected);
  });

  it("returns nothing when there is no content word", () => {
    expect(extractTopic("Hi! How are you?")).toBe("");
    expect(extractTopic("😀😀😀")).toBe("");
    expect(extractTopic("")).toBe("");
  });

  it("caps the number of content words and skips overlong words", () => {
    expect(extractTopic("red green blue yellow", 2)).toBe("red green");
    expect(extractTopic(`${"x".repeat(40)} tea`)).toBe("tea");
  });

  it("handles long text without punctuation quickly", () => {
    const text = "word ".repeat(20_000);
    expect(extractTopic(text)).toBe("word word word");
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
});
