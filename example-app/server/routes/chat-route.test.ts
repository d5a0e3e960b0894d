import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../schemas.js";
import { CHAT_HISTORY_LIMIT, trimHistory } from "./chat-route.js";

const turns = (count: number): ChatMessage[] =>
  Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? "user" : "assistant",
    content: `turn ${index}`,
  }));

describe("trimHistory (docs/API.md §8.5: the client may trim long histories)", () => {
  it("keeps a history within the limit as it is", () => {
    const history = turns(CHAT_HISTORY_LIMIT);
    expect(trimHistory(history)).toEqual(history);
  });

  it("keeps the newest messages of a longer one", () => {
    const history = turns(CHAT_HISTORY_LIMIT + 11);
    const trimmed = trimHistory(history);
    expect(trimmed).toHaveLength(CHAT_HISTORY_LIMIT);
    expect(trimmed).toEqual(history.slice(-CHAT_HISTORY_LIMIT));
  });

  it("keeps system and developer messages that would be cut, in front, in place of old turns", () => {
    const system: ChatMessage = { role: "system", content: "Answer in English." };
    const developer: ChatMessage = { role: "developer", content: "The user is a gardener." };
    const history = [system, developer, ...turns(CHAT_HISTORY_LIMIT + 5)];
    const trimmed = trimHistory(history);
    expect(trimmed).toHaveLength(CHAT_HISTORY_LIMIT);
    expect(trimmed.slice(0, 2)).toEqual([system, developer]);
    expect(trimmed.slice(2)).toEqual(history.slice(-(CHAT_HISTORY_LIMIT - 2)));
    expect(trimmed.at(-1)).toEqual(history.at(-1));
  });
});
