import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractTopic } from "./topic.js";

describe("extractTopic", () => {
  it.each([
    // Noun phrases, with what binds to them.
    ["What is the history of ancient Rome?", "the history of ancient Rome"],
    ["What is your refund policy?", "my refund policy"],
    ["Pizza, pasta and wine", "pizza"],
    ["The follow-up call, then lunch", "the follow-up call"],
    ["Mostly beans and courgettes. Any tips?", "beans and courgettes"],
    ["Please recommend a good compost for pots.", "a good compost for pots"],
    ["What's the best way to water succulents?", "the best way to water succulents"],
    ["Is it hot in Rio de Janeiro in May?", "Rio de Janeiro in May"],
    // A subject, with the place or time its verb is set in; a verb's object or state adds nothing.
    ["Which herbs grow well on a balcony?", "herbs on a balcony"],
    ["Juniper, what flowers bloom in winter?", "flowers in winter"],
    ["My e-mail bounced", "your e-mail"],
    ["My roses have black spots on the leaves.", "your roses"],
    ["Why are my tomato leaves turning yellow?", "your tomato leaves"],
    ["How do tides work?", "tides"],
    // An action as a gerund phrase with its object.
    ["Should I vote?", "voting"],
    ["How do I keep my tomatoes happy?", "keeping your tomatoes happy"],
    ["Can you help me plan a herb garden?", "planning a herb garden"],
    ["Can you help me reset my password?", "resetting your password"],
    ["How should I prune roses?", "pruning roses"],
    ["Is it too late to sow carrots?", "sowing carrots"],
    ["Tell me how to get rid of slugs.", "getting rid of slugs"],
    ["How do I set up a greenhouse?", "setting up a greenhouse"],
    ["I went hiking in the Alps yesterday.", "hiking in the Alps"],
    ["I painted my kitchen.", "painting your kitchen"],
    ["What should I pack for a trip to Iceland?", "packing for a trip to Iceland"],
    // Frames looked through: the verb or noun that only asks.
    ["Tell me about the API limits", "the API limits"],
    ["Explain crop rotation.", "crop rotation"],
    ["I need a refund", "a refund"],
    ["Give me some tips on pruning roses.", "pruning roses"],
    ["Good morning! I'd love some advice on composting.", "composting"],
    ["Hi Juniper! Which herbs grow well on a balcony?", "herbs on a balcony"],
    ["Let's talk about seeds.", "seeds"],
    ["I'm going to the garden centre", "the garden centre"],
    ["Could you explain how composting works?", "composting"],
    ["How much sun do lettuces need?", "sun"],
  ])("%j → %j", (input, expected) => {
    expect(extractTopic(input)).toBe(expected);
  });

  it("returns nothing when the message names nothing", () => {
    expect(extractTopic("Hi! How are you?")).toBe("");
    expect(extractTopic("What can you do?")).toBe("");
    expect(extractTopic("How are you doing today?")).toBe("");
    expect(extractTopic("What's up?")).toBe("");
    expect(extractTopic("Any tips?")).toBe("");
    expect(extractTopic("😀😀😀")).toBe("");
    expect(extractTopic("")).toBe("");
  });

  it("keeps to seven words, cut at a whole part, and skips overlong words", () => {
    expect(extractTopic("I just moved into a flat with a small garden.")).toBe(
      "moving into a flat",
    );
    expect(extractTopic(`${"x".repeat(40)} tea`)).toBe("tea");
  });

  it("reads only the start of a long message, quickly", () => {
    const started = performance.now();
    const topic = extractTopic(`Which herbs grow well on a balcony? ${"word ".repeat(6_000)}`);
    expect(topic).toBe("herbs on a balcony");
    expect(extractTopic("word ".repeat(6_000)).split(" ").length).toBeLessThanOrEqual(7);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("property: any text gives a short topic, trimmed, with no sentence punctuation", () => {
    const word = fc.stringMatching(/^[A-Za-z']{1,10}$/u);
    const sentence = fc
      .array(word, { minLength: 1, maxLength: 25 })
      .chain((words) =>
        fc.constantFrom(".", "?", "!", ",", "").map((mark) => words.join(" ") + mark),
      );
    const message = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 300 }),
      fc.array(sentence, { maxLength: 6 }).map((sentences) => sentences.join(" ")),
    );
    fc.assert(
      fc.property(message, (text) => {
        const topic = extractTopic(text);
        expect(topic).toBe(topic.trim());
        expect(topic.split(" ").length).toBeLessThanOrEqual(7);
        expect(topic).not.toMatch(/[.!?,;:]$/u);
      }),
      { numRuns: 300 },
    );
  });
});
