import { describe, expect, it } from "vitest";
import { terminalJson, terminalText } from "./terminal-text.js";

describe("terminal-safe text", () => {
  it("escapes ANSI sequences, C1 controls, DEL and bidirectional overrides visibly", () => {
    const hostile = "Ada\u001b[31mRED\u001b]0;title\u0007\u009b2J\u007f\u202eevil\u200b";
    const shown = terminalText(hostile);
    expect(shown).toBe("Ada\\u001b[31mRED\\u001b]0;title\\u0007\\u009b2J\\u007f\\u202eevil\\u200b");
    expect(shown).not.toMatch(/[\p{Cc}\p{Cf}]/u);
  });

  it("keeps newlines and tabs only when asked", () => {
    expect(terminalText("a\nb\tc")).toBe("a\\u000ab\\u0009c");
    expect(terminalText("a\nb\tc", true)).toBe("a\nb\tc");
  });

  it("renders JSON that parses to the same value, with nothing raw a terminal acts on", () => {
    const value = { name: "x\u009b2J\u202e\u001b[0m", list: ["\n"] };
    const json = terminalJson(value);
    expect(json).not.toMatch(/(?!\n)[\p{Cc}\p{Cf}]/u);
    expect(JSON.parse(json)).toEqual(value);
  });
});
