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

  it("matches avoid topics as whole words or phrases, ignoring case", () => {
    const topics = ["politics", "Stock tips"];
    expect(classifyIntent("What about POLITICS?", topics)).toEqual({
      intent: "avoided-topic",
      avoidedTopic: "politics",
    });
    expect(classifyIntent("any stock   tips!", topics).avoidedTopic).toBe("Stock tips");
    expect(classifyIntent("I met a politician", topics).intent).toBe("statement");
    expect(classifyIntent("stock prices and tips", topics).intent).toBe("statement");
  });

  it("ignores avoid topics without words", () => {
    expect(classifyIntent("Hello", ["!!!"]).intent).toBe("greeting");
  });
});
