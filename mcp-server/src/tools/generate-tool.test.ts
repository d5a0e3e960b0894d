import { describe, expect, it } from "vitest";
import { z } from "zod";
import { generateOutputShape, generateToolResult, historyOf } from "./generate-tool.js";
import { personifyOutputShape, personifyToolResult } from "./personify-tool.js";
import { ToolInputError } from "./tool-error.js";

describe("historyOf", () => {
  it("sends messages as given", () => {
    const messages = [
      { role: "system" as const, content: "Be brief." },
      { role: "user" as const, content: [{ type: "text" as const, text: "Hi" }] },
    ];
    expect(historyOf({ messages })).toBe(messages);
  });

  it("appends message as the last user turn after history", () => {
    expect(
      historyOf({ message: "And now?", history: [{ role: "assistant", content: "Hello." }] }),
    ).toEqual([
      { role: "assistant", content: "Hello." },
      { role: "user", content: "And now?" },
    ]);
    expect(historyOf({ message: "Hi" })).toEqual([{ role: "user", content: "Hi" }]);
  });

  it("refuses both, neither, or history beside messages", () => {
    const messages = [{ role: "user" as const, content: "Hi" }];
    expect(() => historyOf({ messages, message: "Hi" })).toThrow(ToolInputError);
    expect(() => historyOf({ messages, message: "Hi" })).toThrow(/not both/u);
    expect(() => historyOf({})).toThrow(/give `message`/u);
    expect(() => historyOf({ messages, history: messages })).toThrow(/`history` goes with/u);
  });
});

describe("tool results", () => {
  it("gives the final reply as text and the reply result as structured content", () => {
    const result = generateToolResult({
      finalReply: "Hi!",
      chunks: ["Hi!"],
      rateLimits: [{ window: "minute", limit: 25, remaining: 24, reset: 1 }],
    });
    expect(result.content).toEqual([{ type: "text", text: "Hi!" }]);
    expect(result.structuredContent).toEqual({ finalReply: "Hi!", chunks: ["Hi!"] });
    expect(z.object(generateOutputShape).strict().safeParse(result.structuredContent).success).toBe(
      true,
    );
  });

  it("lists alternatives in a second text block and in replyChoices", () => {
    const result = generateToolResult({
      finalReply: "B",
      chunks: ["B"],
      replyChoices: ["A", "B"],
    });
    expect(result.content[1]).toEqual({ type: "text", text: "Alternative replies:\n1. A\n2. B" });
    expect(result.structuredContent).toEqual({
      finalReply: "B",
      chunks: ["B"],
      replyChoices: ["A", "B"],
    });
  });

  it("gives the rewritten text as text and { personified, chunks }", () => {
    const result = personifyToolResult({ personified: "Well, hello.", chunks: ["Well, hello."] });
    expect(result.content).toEqual([{ type: "text", text: "Well, hello." }]);
    expect(
      z.object(personifyOutputShape).strict().safeParse(result.structuredContent).success,
    ).toBe(true);
  });
});
