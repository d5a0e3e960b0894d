import { describe, expect, it } from "vitest";
import { safeReturnPath } from "./return-path.js";

describe("safeReturnPath", () => {
  it("keeps same-site paths with their query", () => {
    expect(safeReturnPath("/keys")).toBe("/keys");
    expect(safeReturnPath("/api/persona/cli/login?state=abc&name=x%20y")).toBe(
      "/api/persona/cli/login?state=abc&name=x%20y",
    );
  });

  it.each([
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example",
    "keys",
    "",
    "javascript:alert(1)",
  ])("refuses %j", (value) => {
    expect(safeReturnPath(value)).toBeUndefined();
  });

  it("refuses non-strings and over-long values", () => {
    expect(safeReturnPath(["/keys"])).toBeUndefined();
    expect(safeReturnPath(`/${"a".repeat(9000)}`)).toBeUndefined();
  });
});
