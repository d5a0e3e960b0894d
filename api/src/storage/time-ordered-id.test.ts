import { describe, expect, it } from "vitest";
import { timeOrderedId } from "./time-ordered-id.js";

describe("timeOrderedId", () => {
  it("is a version 7 UUID", () => {
    expect(timeOrderedId()).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u,
    );
  });

  it("sorts in creation order within one millisecond and past the counter's end", () => {
    const now = Date.now() + 60_000;
    const ids = Array.from({ length: 5_000 }, () => timeOrderedId(now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("draws fresh randomness for every ID, past each refill of its pool", () => {
    const ids = Array.from({ length: 2_000 }, () => timeOrderedId());
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u);
    }
    // rand_b (the last 62 bits): 2,000 draws of 62 random bits never repeat in practice.
    const tails = new Set(ids.map((id) => id.slice(19)));
    expect(tails.size).toBe(ids.length);
  });
});
