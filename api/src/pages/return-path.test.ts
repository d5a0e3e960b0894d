import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeReturnPath } from "./return-path.js";

const ORIGIN = "http://site.test";
/** Pages a browser could be on when it follows `Location` (it resolves the path against them). */
const PAGES = [`${ORIGIN}/`, `${ORIGIN}/sign-in/verify?token=x`, `${ORIGIN}/a/b/c/`];

/** Pieces that URL parsers treat specially: dot segments, percent-encoding, backslashes, whitespace. */
const PIECES = [
  "/",
  "\\",
  ".",
  "..",
  "%2e",
  "%2E",
  "%2e%2e",
  ".%2e",
  "%2f",
  "%2F",
  "%5c",
  "%5C",
  "%252e",
  "%09",
  "\t",
  "\n",
  "\r",
  " ",
  "evil.example",
  "x",
  "?",
  "#",
  ":",
  "@",
  "http:",
  "javascript:",
  "keys",
];

const hostile = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((pieces) => pieces.join("")),
  fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((pieces) => `/${pieces.join("")}`),
  fc.string({ maxLength: 40 }),
);

describe("safeReturnPath", () => {
  it("keeps same-site paths with their query", () => {
    expect(safeReturnPath("/keys")).toBe("/keys");
    expect(safeReturnPath("/api/persona/cli/login?state=abc&name=x%20y")).toBe(
      "/api/persona/cli/login?state=abc&name=x%20y",
    );
    expect(safeReturnPath("/a/../keys")).toBe("/keys");
  });

  it.each([
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example",
    "keys",
    "",
    "javascript:alert(1)",
    // From the outside review: one `/` in the raw value, `//` once normalized.
    "/.//evil.example/x",
    "/a/..//evil.example",
    "/%2e//evil.example",
    "/x/../\\evil.example",
    "/.\\/evil.example",
    "/%2e%2e//evil.example",
    "/\t/evil.example",
  ])("refuses %j", (value) => {
    expect(safeReturnPath(value)).toBeUndefined();
  });

  it("refuses non-strings and over-long values", () => {
    expect(safeReturnPath(["/keys"])).toBeUndefined();
    expect(safeReturnPath(`/${"a".repeat(9000)}`)).toBeUndefined();
  });

  it("never returns a path that leaves the site, from any page, and is stable", () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const path = safeReturnPath(value);
        if (path === undefined) return;
        expect(path).toMatch(/^\/[^/\\]|^\/$/u);
        for (const page of PAGES) expect(new URL(path, page).origin).toBe(ORIGIN);
        expect(safeReturnPath(path)).toBe(path);
      }),
      { numRuns: 5_000 },
    );
  });

  it("keeps every plain local path as it is", () => {
    const segment = fc.stringMatching(/^[\w-]{1,12}$/u);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const path = `/${segments.join("/")}`;
        expect(safeReturnPath(path)).toBe(path);
      }),
    );
  });
});
