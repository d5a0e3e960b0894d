import { describe, expect, it } from "vitest";
import { CANDIDATE_TEMPERATURE_RANGE, candidateSampling } from "./parallel-candidates.js";

describe("candidateSampling", () => {
  it("leaves a single candidate to the upstream's defaults", () => {
    expect(candidateSampling(1)).toEqual([undefined]);
  });

  it("gives every candidate its own temperature within the range and its own seed", () => {
    for (let candidates = 2; candidates <= 5; candidates++) {
      const sampling = candidateSampling(candidates, 1000);
      const temperatures = sampling.map((entry) => entry?.temperature);
      const seeds = sampling.map((entry) => entry?.seed);
      expect(new Set(temperatures).size).toBe(candidates);
      expect(new Set(seeds).size).toBe(candidates);
      expect(seeds[0]).toBe(1000);
      expect(temperatures[0]).toBe(CANDIDATE_TEMPERATURE_RANGE.lowest);
      expect(temperatures.at(-1)).toBe(CANDIDATE_TEMPERATURE_RANGE.highest);
      for (const temperature of temperatures) {
        expect(temperature).toBeGreaterThanOrEqual(0);
        expect(temperature).toBeLessThanOrEqual(1); // Anthropic's upper bound
      }
    }
  });

  it("draws a fresh seed base per request when none is given", () => {
    const bases = new Set(Array.from({ length: 5 }, () => candidateSampling(3)[0]?.seed));
    expect(bases.size).toBeGreaterThan(1);
  });
});
