import { describe, expect, it } from "vitest";
import { contractText, hasContraction } from "./contractions.js";
import { fillTemplate } from "./fill-template.js";
import {
  CORE_TEMPLATES,
  ELABORATIONS,
  FOLLOW_UPS,
  ROLE_SENTENCES,
  TOPIC_SENTENCES,
} from "./reply-phrasebook.js";

const slots = {
  topic: "tea",
  role: "your tutor",
  hello: "Hello",
  goodbye: "Goodbye",
  sure: "Sure",
  understood: "Understood",
  glad: "glad",
};

const cores = Object.values(CORE_TEMPLATES).flatMap((core) => [
  ...core.withTopic,
  ...core.withoutTopic,
]);
const statements = [
  ...cores,
  ...Object.values(ELABORATIONS).flat(),
  ...TOPIC_SENTENCES,
  ...ROLE_SENTENCES,
];
const followUps = Object.values(FOLLOW_UPS).flatMap((core) => [
  ...core.withTopic,
  ...core.withoutTopic,
]);

describe("reply phrasebook", () => {
  it("gives every intent at least five core templates, so five candidates differ", () => {
    for (const core of Object.values(CORE_TEMPLATES)) {
      expect(core.withTopic.length).toBeGreaterThanOrEqual(5);
      expect(core.withoutTopic.length).toBeGreaterThanOrEqual(5);
      expect(new Set(core.withoutTopic).size).toBe(core.withoutTopic.length);
    }
  });

  it("writes every core template so that a casual persona contracts it", () => {
    for (const template of cores) {
      expect(hasContraction(contractText(fillTemplate(template, slots))), template).toBe(true);
    }
  });

  it("uses only full forms and known slots, ending statements with a period", () => {
    for (const template of [...statements, ...followUps]) {
      const filled = fillTemplate(template, slots);
      expect(hasContraction(filled), template).toBe(false);
      expect(filled, template).not.toMatch(/[{}!]/);
    }
    for (const template of statements) expect(template, template).toMatch(/\.$/);
    for (const template of followUps) expect(template, template).toMatch(/\?$/);
  });

  it("puts the topic only into topic templates", () => {
    for (const core of Object.values(CORE_TEMPLATES)) {
      for (const template of core.withoutTopic) expect(template).not.toContain("{topic}");
    }
  });
});
