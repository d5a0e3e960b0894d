import { describe, expect, it } from "vitest";
import { findAvoidedTopic } from "./avoided-topic.js";

describe("findAvoidedTopic", () => {
  it("finds a topic by its own words, in any form, as written by the operator", () => {
    expect(findAvoidedTopic("Tell me about your medications.", ["Medication."])).toBe(
      "Medication.",
    );
    expect(findAvoidedTopic("Who are our competitors?", [" competitor "])).toBe("competitor");
    expect(findAvoidedTopic("Any stock   tips!", ["Stock tips"])).toBe("Stock tips");
    expect(findAvoidedTopic("I like stock photos", ["Stock tips"])).toBeUndefined();
  });

  it("finds a common topic by its synonyms, however it is written", () => {
    for (const topic of ["politics", "Politics", "elections", "voting"]) {
      expect(findAvoidedTopic("Should I vote this year?", [topic]), topic).toBe(topic);
      expect(findAvoidedTopic("The candidates were on TV.", [topic]), topic).toBe(topic);
    }
    expect(findAvoidedTopic("Is the prime minister right?", ["politics"])).toBe("politics");
    expect(findAvoidedTopic("Should I buy bitcoin?", ["financial advice"])).toBe(
      "financial advice",
    );
    expect(findAvoidedTopic("Which church should I visit?", ["religion"])).toBe("religion");
  });

  it("leaves words that usually mean something else", () => {
    const topics = ["politics", "medical advice", "recreational drugs"];
    for (const text of [
      "Are you coming to the garden party?",
      "The council runs the allotments.",
      "What is the best treatment for aphids?",
      "How do I stop weeds in my pots?",
      "My roses have a fungal disease.",
    ]) {
      expect(findAvoidedTopic(text, topics), text).toBeUndefined();
    }
  });

  it("gives the topic the message names first, and a topic's own words before another's synonyms", () => {
    expect(findAvoidedTopic("Is wine a medicine?", ["medication", "alcohol"])).toBe("alcohol");
    expect(findAvoidedTopic("drugs", ["medication", "drugs"])).toBe("drugs");
  });

  it("reads a whole long message, quickly, and ignores topics without words", () => {
    const text = `${"tea and roses ".repeat(2_000)}and the election`;
    const started = performance.now();
    expect(findAvoidedTopic(text, ["politics"])).toBe("politics");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(findAvoidedTopic("Hello", ["!!!"])).toBeUndefined();
    expect(findAvoidedTopic("Hello", [])).toBeUndefined();
  });
});
