import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHUNK_MAX_LENGTH, chunkText } from "./chunk.js";
import { normalizeOutput } from "./normalize.js";

const words = (text: string) => text.split(/\s+/u).filter((word) => word !== "");

describe("chunkText", () => {
  it("splits along sentence boundaries", () => {
    const text =
      "I love tomatoes. They need sun, water and patience, and a little bit of luck with the weather too. Do you grow any? Mine are still green this year, sadly.";
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk).toMatch(/[.?!]$/u);
  });

  it("splits long text without punctuation between words, never inside one", () => {
    const text = Array.from({ length: 300 }, (_, index) => `word${index}`).join(" ");
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(CHUNK_MAX_LENGTH);
    expect(chunks.join(" ")).toBe(text);
  });

  it("keeps a single very long word whole", () => {
    const url = `https://example.test/${"a".repeat(1_000)}`;
    const chunks = chunkText(`See ${url} now.`);
    expect(chunks).toContain(url);
    expect(chunks.join(" ")).toBe(`See ${url} now.`);
  });

  it("returns no chunks for empty text and keeps emoji and other scripts intact", () => {
    expect(chunkText("")).toEqual([]);
    const text = "Привет! 🌱🌻 Como estás? مرحبا بك. 你好。";
    expect(words(chunkText(text).join(" "))).toEqual(words(text));
  });

  it("property: no words lost or invented, no empty chunks, for any normalized text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 2_000 }), (input) => {
        const text = normalizeOutput(input);
        const chunks = chunkText(text);
        expect(words(chunks.join(" "))).toEqual(words(text));
        for (const chunk of chunks) expect(chunk.trim()).not.toBe("");
      }),
      { numRuns: 300 },
    );
  });

  it("property: same for sentences of random words and punctuation", () => {
    const sentence = fc
      .array(fc.stringMatching(/^[A-Za-zÀ-ÿ0-9']{1,12}$/u), { minLength: 1, maxLength: 40 })
      .chain((parts) =>
        fc.constantFrom(".", "!", "?", "", "…").map((mark) => parts.join(" ") + mark),
      );
    fc.assert(
      fc.property(fc.array(sentence, { maxLength: 30 }), (sentences) => {
        const text = sentences.join(" ");
        expect(words(chunkText(text).join(" "))).toEqual(words(text));
      }),
      { numRuns: 300 },
    );
  });
});
