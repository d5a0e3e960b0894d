import { describe, expect, it } from "vitest";
import { extractSubject } from "./subject.js";

describe("extractSubject", () => {
  it("finds a proper noun inside a sentence", () => {
    expect(extractSubject("I'm planning a weekend trip to Lisbon. Any tips on what to see?")).toBe(
      "Lisbon",
    );
    expect(extractSubject("We moved to the Alps last year.")).toBe("Alps");
  });

  it("joins names of several words, with small connectors inside", () => {
    expect(extractSubject("Any tips for a week in New York?")).toBe("New York");
    expect(extractSubject("Is it hot in Rio de Janeiro in May?")).toBe("Rio de Janeiro");
    expect(extractSubject("New York is loud.")).toBe("New York");
  });

  it("does not take I, a capital that only starts a sentence, or lowercase text", () => {
    expect(extractSubject("I think I'm lost. Where do I start?")).toBe("");
    expect(extractSubject("Planning a trip. Tips?")).toBe("");
    expect(extractSubject("what's good to eat in new york")).toBe("");
    expect(extractSubject("")).toBe("");
  });
});
