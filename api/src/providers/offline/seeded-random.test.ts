import { describe, expect, it } from "vitest";
import { createSeededRandom, hashTexts } from "./seeded-random.js";

describe("hashTexts", () => {
  it("matches the published FNV-1a 32-bit value of a known input", () => {
    // FNV-1a("a") = 0xe40c292c; a trailing NUL separator is one more round.
    expect(hashTexts([])).toBe(0x811c9dc5);
    expect(hashTexts(["a"])).toBe(Math.imul(0xe40c292c, 0x01000193) >>> 0);
  });

  it("keeps parts apart and hashes lone surrogates", () => {
    expect(hashTexts(["ab", "c"])).not.toBe(hashTexts(["a", "bc"]));
    expect(hashTexts(["\uD800"])).toBe(hashTexts(["\uD800"]));
  });

  it("continues from a previous hash", () => {
    expect(hashTexts(["c"], hashTexts(["a", "b"]))).toBe(hashTexts(["a", "b", "c"]));
  });
});

describe("createSeededRandom", () => {
  it("gives the same sequence for the same seed", () => {
    const first = createSeededRandom(42);
    const second = createSeededRandom(42);
    const sequence = Array.from({ length: 5 }, () => first.next());
    expect(Array.from({ length: 5 }, () => second.next())).toEqual(sequence);
    expect(createSeededRandom(43).next()).not.toBe(sequence[0]);
  });

  it("stays in range", () => {
    const random = createSeededRandom(7);
    for (let round = 0; round < 200; round++) {
      const value = random.next();
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
      const integer = random.integer(2, 4);
      expect([2, 3, 4]).toContain(integer);
      expect(["a", "b"]).toContain(random.pick(["a", "b"]));
    }
    expect(random.chance(0)).toBe(false);
    expect(random.chance(1)).toBe(true);
  });

  it("refuses to pick from an empty list", () => {
    expect(() => createSeededRandom(1).pick([])).toThrow(RangeError);
  });
});
