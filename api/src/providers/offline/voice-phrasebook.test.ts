import { describe, expect, it } from "vitest";
import { hasContraction } from "./contractions.js";
import {
  ENGAGEMENT_SENTENCES,
  EXTRA_SENTENCES,
  FOLLOW_UP_PROBABILITY,
  HUMOUR_ASIDES,
  PERSONIFY_CLOSERS,
  PERSONIFY_OPENERS,
  STANCE_SENTENCES,
  TONE_SENTENCES,
} from "./voice-phrasebook.js";

const sentences = [
  ENGAGEMENT_SENTENCES,
  HUMOUR_ASIDES,
  PERSONIFY_CLOSERS,
  PERSONIFY_OPENERS,
  STANCE_SENTENCES,
  TONE_SENTENCES,
].flatMap((table) => Object.values(table).flat());

describe("voice phrasebook", () => {
  it("writes whole sentences in full forms, without exclamation marks", () => {
    for (const sentence of sentences) {
      expect(sentence, sentence).toMatch(/^[A-Z].*\.$/);
      expect(sentence, sentence).not.toContain("!");
      expect(hasContraction(sentence), sentence).toBe(false);
    }
  });

  it("grows with verbosity and asks most often for 'often'", () => {
    expect(EXTRA_SENTENCES.concise[1]).toBeLessThan(EXTRA_SENTENCES.balanced[0]);
    expect(EXTRA_SENTENCES.balanced[1]).toBeLessThan(EXTRA_SENTENCES.elaborate[0]);
    expect(FOLLOW_UP_PROBABILITY.often).toBe(1);
    expect(FOLLOW_UP_PROBABILITY.rarely).toBeLessThan(FOLLOW_UP_PROBABILITY.sometimes);
  });

  it("offers at least five personify openers per formality, so candidates can differ", () => {
    for (const openers of Object.values(PERSONIFY_OPENERS)) {
      expect(new Set(openers).size).toBeGreaterThanOrEqual(5);
    }
  });
});
