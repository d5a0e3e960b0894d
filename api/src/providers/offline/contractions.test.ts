import { describe, expect, it } from "vitest";
import { contractText, expandContractions, hasContraction } from "./contractions.js";

describe("expandContractions", () => {
  it.each([
    ["I'm sure it's fine.", "I am sure it is fine."],
    ["Don’t worry, we can't stop.", "Do not worry, we cannot stop."],
    ["WON'T", "WILL NOT"],
    ["She's been away and I'd better go.", "She has been away and I had better go."],
    ["Anna's cat isn't here.", "Anna's cat is not here."],
    ["o'clock", "o'clock"],
  ])("%j → %j", (input, expected) => {
    expect(expandContractions(input)).toBe(expected);
  });
});

describe("contractText", () => {
  it.each([
    ["I am sure it is not done.", "I'm sure it isn't done."],
    ["Do not stop; we cannot wait.", "Don't stop; we can't wait."],
    ["I know what it is.", "I know what it is."],
    ["That is what I am.", "That's what I am."],
    ["DO NOT", "DON'T"],
    ["do\nnot", "do\nnot"],
    ["Please let us know.", "Please let us know."],
  ])("%j → %j", (input, expected) => {
    expect(contractText(input)).toBe(expected);
  });

  it("writes the apostrophe it is given", () => {
    expect(contractText("I will not go.", "’")).toBe("I won’t go.");
  });

  it("round-trips through expansion", () => {
    const text = "I am sure that is fine, and we will not fail.";
    expect(expandContractions(contractText(text))).toBe(text);
  });
});

describe("hasContraction", () => {
  it("finds known contractions only", () => {
    expect(hasContraction("I’m here.")).toBe(true);
    expect(hasContraction("Anna's cat.")).toBe(false);
    expect(hasContraction("I am here.")).toBe(false);
  });
});
