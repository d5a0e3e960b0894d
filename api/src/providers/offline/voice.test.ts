import { describe, expect, it } from "vitest";
import { applyFormality, capitalizeFirst, exclaim, finishSentence } from "./voice.js";

describe("applyFormality", () => {
  it("contracts for casual, expands for formal, follows the flag for neutral", () => {
    expect(applyFormality("I am here.", "casual", false)).toBe("I'm here.");
    expect(applyFormality("I'm here.", "formal", true)).toBe("I am here.");
    expect(applyFormality("I am here.", "neutral", false)).toBe("I am here.");
    expect(applyFormality("I am here.", "neutral", true)).toBe("I'm here.");
  });
});

describe("sentence helpers", () => {
  it("exclaims only a final single period", () => {
    expect(exclaim("Great.")).toBe("Great!");
    expect(exclaim("Well...")).toBe("Well...");
    expect(exclaim("Why?")).toBe("Why?");
  });

  it("finishes sentences that end in a word", () => {
    expect(finishSentence("Stay curious")).toBe("Stay curious.");
    expect(finishSentence("Done!")).toBe("Done!");
    expect(finishSentence('He said "yes."')).toBe('He said "yes."');
    expect(finishSentence("Party 🎉")).toBe("Party 🎉");
    expect(finishSentence("Go", "!")).toBe("Go!");
  });

  it("capitalizes the first character", () => {
    expect(capitalizeFirst("as you wish.")).toBe("As you wish.");
    expect(capitalizeFirst("مرحبا")).toBe("مرحبا");
    expect(capitalizeFirst("")).toBe("");
  });
});
