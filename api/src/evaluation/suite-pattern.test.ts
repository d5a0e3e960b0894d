import { describe, expect, it } from "vitest";
import { SuitePatternError, suitePattern } from "./suite-pattern.js";

describe("suite patterns", () => {
  it("decide a pattern that backtracks catastrophically in JavaScript at once", () => {
    const pattern = suitePattern("(a+)+$", "iu");
    const started = performance.now();
    expect(pattern.test(`${"a".repeat(40)}!`)).toBe(false);
    expect(pattern.test(`${"a".repeat(10_000)}!`)).toBe(false);
    expect(pattern.test("a".repeat(40))).toBe(true);
    expect(suitePattern("^(\\w+\\s?)*$", "iu").test(`${"word ".repeat(2_000)}!`)).toBe(false);
    // JavaScript's engine takes minutes for the first one alone.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("keep JavaScript's flags and syntax", () => {
    expect(suitePattern("^hello\\b", "iu").test("Hello there")).toBe(true);
    expect(suitePattern("^hello\\b", "u").test("Hello there")).toBe(false);
    expect(suitePattern("^there", "iu").test("Hello\nthere")).toBe(false);
    expect(suitePattern("^there", "imu").test("Hello\nthere")).toBe(true);
    expect(suitePattern("hello.there", "iu").test("hello\nthere")).toBe(false);
    expect(suitePattern("hello.there", "isu").test("hello\nthere")).toBe(true);
    expect(suitePattern("caf\\u00e9|\\u{1F331}", "iu").test("a seedling 🌱")).toBe(true);
    expect(suitePattern("(?<greeting>hi|hello) \\p{Lu}", "u").test("hello Juniper")).toBe(true);
    expect(suitePattern("[\\p{Lu}\\d]x", "v").test("Jx")).toBe(true);
    expect(suitePattern("\\d{2,}\\s*(?:seeds|bulbs)", "iu").test("Plant 12 Bulbs")).toBe(true);
    expect(suitePattern("[^]", "u").test("\n")).toBe(true);
    expect(suitePattern("\\/path", "").test("a /path")).toBe(true);
  });

  it.each([
    ["(", "iu", /not a valid regular expression: .*Unterminated group/u],
    ["(a)\\1", "iu", /a backreference \(\\1\) is not supported: .*linear-time engine \(RE2\)/u],
    ["(?<x>a)\\k<x>", "iu", /a backreference \(\\k<x>\) is not supported/u],
    ["juniper(?= says)", "iu", /a lookahead \(\(\?= says\)\) is not supported/u],
    ["(?<!not )sure", "iu", /a lookbehind \(\(\?<!not \)\) is not supported/u],
    ["[\\p{L}--[a-z]]", "v", /a class set operation \(\[\\p\{L\}--\[a-z\]\]\) is not supported/u],
    ["[\\p{L}&&\\p{Lu}]", "v", /a class set operation .* is not supported/u],
    ["[[a-z]]", "v", /a nested class \(\[a-z\]\) is not supported/u],
    ["[\\q{hi}]", "v", /a string class .* is not supported/u],
    ["\\Ahello", "i", /\\A means "A" in JavaScript but not in RE2/u],
    ["a{1001}", "iu", /not supported: invalid repeat count: `\{1001\}`/u],
    ["\\p{Letter}", "iu", /not supported: invalid character class range: `\\p\{Letter\}`/u],
  ])("refuse %j (flags %j), saying why", (source, flags, message) => {
    expect(() => suitePattern(source, flags)).toThrow(SuitePatternError);
    expect(() => suitePattern(source, flags)).toThrow(message);
  });
});
