import { describe, expect, it } from "vitest";
import { classifyIntent } from "./intent.js";

describe("classifyIntent", () => {
  it.each([
    ["Hi!", "greeting"],
    ["Good morning 👋", "greeting"],
    ["bye", "farewell"],
    ["Ok, take care", "farewell"],
    ["Thanks so much!", "thanks"],
    ["Thank you for your help", "thanks"],
    ["Sorry, my mistake.", "apology"],
    ["What time is it", "question"],
    ["The weather is nice?", "question"],
    ["Hi, how are you?", "question"],
    ["Can you help me with my order?", "help"],
    ["I need a refund", "help"],
    ["Please reset my password", "help"],
    ["I went hiking yesterday.", "statement"],
    ["Hi, my order arrived late and the box was damaged.", "statement"],
    ["", "statement"],
    ["😀", "statement"],
  ])("%j is %s", (text, intent) => {
    expect(classifyIntent(text, []).intent).toBe(intent);
  });

  it.each([
    ["Explain crop rotation.", "help"],
    ["Tell me how to get rid of slugs.", "help"],
    ["Please water my plants.", "help"],
    ["Water the roses daily.", "help"],
    ["Mostly beans and courgettes.", "statement"],
    ["Roses the colour of wine.", "statement"],
    ["Tomorrow the club meets.", "statement"],
  ])("%j, in the imperative or not, is %s", (text, intent) => {
    expect(classifyIntent(text, []).intent).toBe(intent);
  });

  it("matches avoid topics as whole words or phrases, ignoring case", () => {
    const topics = ["politics", "Stock tips"];
    expect(classifyIntent("What about POLITICS?", topics)).toEqual({
      intent: "avoided-topic",
      avoidedTopic: "politics",
    });
    expect(classifyIntent("any stock   tips!", topics).avoidedTopic).toBe("Stock tips");
    expect(classifyIntent("The garden party was fun", topics).intent).toBe("statement");
    expect(classifyIntent("stock prices and tips", topics).intent).toBe("statement");
  });

  it("matches an avoid topic by its synonyms, in any form", () => {
    const topics = ["politics", "medication"];
    for (const text of [
      "Should I vote?",
      "Who should I vote for in the council election?",
      "I met a politician",
      "Which candidate is best?",
    ]) {
      expect(classifyIntent(text, topics), text).toEqual({
        intent: "avoided-topic",
        avoidedTopic: "politics",
      });
    }
    expect(classifyIntent("Are painkillers safe after digging?", topics).avoidedTopic).toBe(
      "medication",
    );
  });

  it("ignores avoid topics without words", () => {
    expect(classifyIntent("Hello", ["!!!"]).intent).toBe("greeting");
  });
});
