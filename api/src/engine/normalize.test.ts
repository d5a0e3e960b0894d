import { describe, expect, it } from "vitest";
import { normalizeOutput } from "./normalize.js";

describe("normalizeOutput", () => {
  it("collapses whitespace and keeps at most one blank line", () => {
    expect(normalizeOutput("  Hello \t there.\r\n\r\n\r\n\nBye  ")).toBe("Hello there.\n\nBye");
  });

  it("strips role and persona-name prefixes and wrapping quotes", () => {
    expect(normalizeOutput('Assistant: "Hi there!"')).toBe("Hi there!");
    expect(normalizeOutput("Juniper: Lovely day.", "Juniper")).toBe("Lovely day.");
    expect(normalizeOutput("“Quoted whole.”")).toBe("Quoted whole.");
    expect(normalizeOutput('"One" and "two"')).toBe('"One" and "two"');
  });

  it("removes model artefacts and think blocks", () => {
    expect(normalizeOutput("<think>plan it</think>Sure thing.<|im_end|></s>")).toBe("Sure thing.");
  });

  it("applies Unicode NFC and repairs lone surrogates", () => {
    expect(normalizeOutput("Cafe\u0301")).toBe("Café");
    expect(normalizeOutput("bad \ud800 half")).toBe("bad \ufffd half");
  });

  it("is idempotent", () => {
    const samples = ['  Assistant:  "Hello  world."  ', "A\n\n\n\nB", "plain"];
    for (const sample of samples) {
      const once = normalizeOutput(sample);
      expect(normalizeOutput(once)).toBe(once);
    }
  });
});
