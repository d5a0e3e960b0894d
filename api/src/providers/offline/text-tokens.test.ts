import { describe, expect, it } from "vitest";
import { isContentWord, normalizeWord, tokenize, wordsOf } from "./text-tokens.js";

describe("tokenize", () => {
  it("alternates words and separators and round-trips", () => {
    const tokens = tokenize("Hi, don’t go!");
    expect(tokens.map((token) => token.text)).toEqual(["Hi", ", ", "don’t", " ", "go", "!"]);
    expect(tokens.map((token) => token.isWord)).toEqual([true, false, true, false, true, false]);
  });

  it.each([
    "😀👍🏽 family 👨‍👩‍👧",
    "مرحبا بالعالم",
    "a\uD800b\uDC00c",
    "",
    "   \n\t ",
    "e\u0301té naïve",
  ])("keeps every character of %j", (text) => {
    expect(
      tokenize(text)
        .map((token) => token.text)
        .join(""),
    ).toBe(text);
  });
});

describe("words", () => {
  it("normalizes case and apostrophes", () => {
    expect(normalizeWord("Don’T")).toBe("don't");
    expect(wordsOf("Hello, World! 42")).toEqual(["hello", "world", "42"]);
  });

  it("tells content words from function words", () => {
    expect(isContentWord("refund")).toBe(true);
    expect(isContentWord("alps")).toBe(true);
    expect(isContentWord("42")).toBe(true);
    expect(isContentWord("the")).toBe(false);
    expect(isContentWord("don't")).toBe(false);
    expect(isContentWord("it's")).toBe(false);
    expect(isContentWord("u")).toBe(false);
    expect(isContentWord("anna's")).toBe(true);
  });
});
