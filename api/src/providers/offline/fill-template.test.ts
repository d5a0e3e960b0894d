import { describe, expect, it } from "vitest";
import { fillTemplate } from "./fill-template.js";

describe("fillTemplate", () => {
  it("fills slots without re-reading inserted text", () => {
    expect(fillTemplate("As {role}, about {topic}.", { role: "a {topic}", topic: "tea" })).toBe(
      "As a {topic}, about tea.",
    );
  });

  it("leaves unknown slots visible", () => {
    expect(fillTemplate("Hi {name}.", {})).toBe("Hi {name}.");
  });
});
