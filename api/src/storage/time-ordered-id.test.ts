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
});
