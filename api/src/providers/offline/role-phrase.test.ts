import { describe, expect, it } from "vitest";
import { rolePhrase } from "./role-phrase.js";

describe("rolePhrase", () => {
  it.each([
    ["A friendly barista at Bean There.", "a friendly barista at Bean There"],
    ["You are a legal research assistant.", "a legal research assistant"],
    ["Customer support agent for Acme", "your customer support agent for Acme"],
    ["Tutor", "your tutor"],
    ["Acme Support", "your Acme Support"],
    ["Acme's billing helper; never rude", "Acme's billing helper"],
    ["The ship's cook", "the ship's cook"],
    ["!!!", "your assistant"],
  ])("%j → %j", (role, expected) => {
    expect(rolePhrase(role)).toBe(expected);
  });

  it("keeps at most twelve words", () => {
    const role = Array.from({ length: 30 }, (_, index) => `word${index}`).join(" ");
    expect(rolePhrase(role).split(" ")).toHaveLength(13);
  });
});
