import { describe, expect, it } from "vitest";
import { conversationDrift } from "./conversation-drift.js";

const turns = (...scores: number[]) => scores.map((score, index) => ({ turn: index + 1, score }));

describe("conversationDrift", () => {
  it("is the least-squares change from the first judged turn to the last", () => {
    // On a straight line it is last − first.
    expect(conversationDrift(turns(5, 4, 3, 2, 1))).toBeCloseTo(-4, 10);
    expect(conversationDrift(turns(2, 3))).toBeCloseTo(1, 10);
    // One noisy last turn moves it less than it moves last − first (−3).
    expect(conversationDrift(turns(4, 4, 4, 4, 4, 1))).toBeCloseTo((-7.5 / 17.5) * 5, 10);
    // Turns without a score are left out; the span is that of the judged turns.
    expect(
      conversationDrift([
        { turn: 2, score: 5 },
        { turn: 6, score: 3 },
      ]),
    ).toBeCloseTo(-2, 10);
  });

  it("is 0 for a flat conversation and null below two judged turns", () => {
    expect(conversationDrift(turns(4, 4, 4, 4, 4, 4))).toBe(0);
    expect(conversationDrift(turns(3))).toBeNull();
    expect(conversationDrift([])).toBeNull();
  });
});
