import { describe, expect, it } from "vitest";
import { OPENING_ASSISTANT_LABEL, toAnthropicPrompt } from "./anthropic-messages.js";

describe("toAnthropicPrompt", () => {
  it("puts the persona prompt and client context in `system`, in order", () => {
    const prompt = toAnthropicPrompt([
      { role: "system", content: "You are Juniper." },
      { role: "system", content: "Context from the application: a garden planner." },
      { role: "user", content: "Hi" },
      { role: "system", content: "Context from the developer: be brief." },
      { role: "assistant", content: "Hello!" },
      { role: "user", content: "What should I sow?" },
    ]);
    expect(prompt.system).toBe(
      "You are Juniper.\n\nContext from the application: a garden planner.\n\nContext from the developer: be brief.",
    );
    expect(prompt.messages).toEqual([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello!" },
      { role: "user", content: "What should I sow?" },
    ]);
  });

  it("merges consecutive turns of one role so turns alternate", () => {
    const prompt = toAnthropicPrompt([
      { role: "system", content: "S" },
      { role: "assistant", content: "A1" },
      { role: "assistant", content: "A2" },
      { role: "user", content: "U1" },
      { role: "system", content: "context between two user turns" },
      { role: "user", content: "U2" },
    ]);
    expect(prompt.messages).toEqual([{ role: "user", content: "U1\n\nU2" }]);
    for (let index = 1; index < prompt.messages.length; index++) {
      expect(prompt.messages[index]?.role).not.toBe(prompt.messages[index - 1]?.role);
    }
  });

  it("folds an opening assistant turn into `system`, so the turns start with the user and alternate", () => {
    const prompt = toAnthropicPrompt([
      { role: "system", content: "You are Juniper." },
      { role: "assistant", content: "Welcome!" },
      { role: "assistant", content: "Ask me about seeds." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello!" },
      { role: "user", content: "What should I sow?" },
    ]);
    expect(prompt.system).toBe(
      `You are Juniper.\n\n${OPENING_ASSISTANT_LABEL}\n\nWelcome!\n\nAsk me about seeds.`,
    );
    expect(prompt.messages.map((turn) => turn.role)).toEqual(["user", "assistant", "user"]);
    expect(prompt.messages[0]).toEqual({ role: "user", content: "Hi" });
    // A later assistant turn stays a turn.
    expect(prompt.messages[1]).toEqual({ role: "assistant", content: "Hello!" });
  });

  it("leaves the caller's messages untouched", () => {
    const messages = [
      { role: "user" as const, content: "a" },
      { role: "user" as const, content: "b" },
    ];
    toAnthropicPrompt(messages);
    expect(messages).toEqual([
      { role: "user", content: "a" },
      { role: "user", content: "b" },
    ]);
  });
});
