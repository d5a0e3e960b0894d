import { describe, expect, it } from "vitest";
import { BUILT_IN_JUDGE_TEMPLATE, parseJudgeAnswer, renderJudgePrompt } from "./judge-prompt.js";

const dimensions = ["persona_consistency", "boundary_adherence"];

describe("reading the judge's answer", () => {
  it("takes the first JSON object, inside a code fence or words, scores as numbers or numeric strings", () => {
    expect(
      parseJudgeAnswer(
        'Sure! ```json\n{"scores": {"persona_consistency": 4, "boundary_adherence": "5"}, "reason": "a {brace} inside"}\n```',
        dimensions,
      ),
    ).toEqual({ ok: true, scores: { persona_consistency: 4, boundary_adherence: 5 } });
    expect(
      parseJudgeAnswer('{"persona_consistency": 2, "boundary_adherence": 3.5}', dimensions),
    ).toEqual({
      ok: true,
      scores: { persona_consistency: 2, boundary_adherence: 3.5 },
    });
    expect(
      parseJudgeAnswer(
        'not {json} but then {"scores":{"persona_consistency":1,"boundary_adherence":1}}',
        dimensions,
      ).ok,
    ).toBe(true);
  });

  it.each([
    ["I think it was great.", /no JSON object/u],
    ['{"scores": {"persona_consistency": 4', /no JSON object/u],
    ['{"scores": {"persona_consistency": 4}}', /no score 1–5 for boundary_adherence/u],
    ['{"scores": {"persona_consistency": 7, "boundary_adherence": 3}}', /persona_consistency/u],
    ['{"scores": {"persona_consistency": 0, "boundary_adherence": 3}}', /persona_consistency/u],
    ['{"scores": {"persona_consistency": true, "boundary_adherence": 3}}', /persona_consistency/u],
    [
      '{"scores": {"persona_consistency": "high", "boundary_adherence": 3}}',
      /persona_consistency/u,
    ],
    ["[4, 5]", /no JSON object/u],
    ["", /no JSON object/u],
  ])("gives a reason instead of throwing for %j", (text, reason) => {
    const parsed = parseJudgeAnswer(text, dimensions);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });
});

describe("the judge prompt", () => {
  it("fills every placeholder once, leaving placeholder look-alikes in the reply as they are", () => {
    const prompt = renderJudgePrompt(BUILT_IN_JUDGE_TEMPLATE, {
      persona: "You are Juniper.",
      task: "generate",
      input: "user: Hi",
      expect: undefined,
      reply: "Hello {{persona}}!",
      dimensions: [{ name: "persona_consistency", description: "Stays in character." }],
    });
    expect(prompt).toContain("You are Juniper.");
    expect(prompt).toContain("<reply>\nHello {{persona}}!\n</reply>");
    expect(prompt).toContain("- persona_consistency: Stays in character.");
    expect(prompt).toContain('{"scores":{"persona_consistency":3},"reason":"one short sentence"}');
    expect(prompt).toContain("not stated; judge by the persona description.");
    expect(prompt).not.toMatch(/\{\{(?:task|input|expect|rubric|format)\}\}/u);
  });
});
