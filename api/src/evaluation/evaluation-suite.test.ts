import { describe, expect, it } from "vitest";
import { EvaluationSuiteError, parseEvaluationSuite } from "./evaluation-suite.js";
import { JUDGE_PROMPT_VERSION, judgePromptOf, PERSONAGYM_DIMENSIONS } from "./judge-prompt.js";

const parse = (text: string) => parseEvaluationSuite(text, "suite.yaml");

describe("evaluation suites", () => {
  it("reads a YAML suite: defaults, everyCase checks first, /generate and /personify cases, a hash", () => {
    const suite = parse(`
name: s
everyCase: [{ type: no-artefacts }]
cases:
  - id: hello
    generate:
      messages: [{ role: user, content: Hi, createdAt: 1767225600 }]
    checks: [{ type: length, unit: words, max: 10 }, { type: judge }]
  - id: rewrite
    personify: { source: "Meet at 10:00." }
`);
    expect(suite.threshold).toBe(1);
    expect(suite.judge.rubric.map((dimension) => dimension.name)).toEqual(
      PERSONAGYM_DIMENSIONS.map((dimension) => dimension.name),
    );
    expect(suite.cases[0]).toMatchObject({
      task: "generate",
      messages: [{ role: "user", content: "Hi", timestamp: "2026-01-01T00:00:00.000Z" }],
      checks: [
        { type: "no-artefacts" },
        { type: "length", unit: "words", max: 10 },
        { type: "judge", minScore: 3 },
      ],
    });
    expect(suite.cases[1]).toMatchObject({ task: "personify", source: "Meet at 10:00." });
    expect(suite.hash).toMatch(/^[0-9a-f]{64}$/u);
    expect(parse("name: s\ncases: [{ id: a, personify: { source: x } }]").hash).not.toBe(
      parse("name: s\ncases: [{ id: a, personify: { source: y } }]").hash,
    );
  });

  it("reads JSON too, and a judge route and own rubric", () => {
    const suite = parse(
      JSON.stringify({
        name: "j",
        judge: {
          route: "judge:gpt-4o-mini",
          rubric: [{ name: "warmth", description: "Sounds warm." }],
        },
        cases: [
          {
            id: "a",
            personify: { source: "x" },
            checks: [{ type: "judge", dimensions: ["warmth"] }],
          },
        ],
      }),
    );
    expect(suite.judge.route).toEqual({ upstream: "judge", model: "gpt-4o-mini" });
    expect(suite.judge.rubric).toEqual([{ name: "warmth", description: "Sounds warm." }]);
  });

  it.each([
    ["name: s\ncases: [", /not valid YAML or JSON/u],
    ["name: s\ncases: []", /cases: .*at least 1|cases: Too small/iu],
    ["name: s\ncases: [{ id: a }]", /cases\.0: give exactly one of generate or personify/u],
    [
      "name: s\ncases: [{ id: a, generate: { messages: [{ role: assistant, content: hi }] } }]",
      /cases\.0\.generate\.messages\.0\.role: the last message must have role user/u,
    ],
    [
      "name: s\ncases: [{ id: a, personify: { source: x } }, { id: a, personify: { source: y } }]",
      /case a is listed twice/u,
    ],
    [
      "name: s\ncases: [{ id: a, personify: { source: x }, checks: [{ type: match }] }]",
      /give exactly one of text or pattern/u,
    ],
    [
      "name: s\ncases: [{ id: a, personify: { source: x }, checks: [{ type: match, pattern: '(' }] }]",
      /not a valid regular expression/u,
    ],
    [
      "name: s\ncases: [{ id: a, personify: { source: x }, checks: [{ type: length, unit: words }] }]",
      /give min, max or both/u,
    ],
    [
      "name: s\ncases: [{ id: a, personify: { source: x }, checks: [{ type: judge, dimensions: [charm] }] }]",
      /charm is not a dimension of the rubric/u,
    ],
    [
      "name: s\ncases: [{ id: a, personify: { source: x }, checks: [{ type: sparkle }] }]",
      /cases\.0\.checks\.0\.type/u,
    ],
    [
      "name: s\njudge: { route: nocolon }\ncases: [{ id: a, personify: { source: x } }]",
      /judge\.route/u,
    ],
    [
      "name: s\njudge: { template: 'x' }\ncases: [{ id: a, personify: { source: x } }]",
      /judge\.promptVersion: a suite with its own template names its version/u,
    ],
  ])("refuses %j naming the field", (text, message) => {
    expect(() => parse(text)).toThrow(EvaluationSuiteError);
    expect(() => parse(text)).toThrow(message);
  });
});

describe("the judge prompt's version", () => {
  it("is the built-in one unless the suite brings its own template, and an unknown built-in version is refused", () => {
    expect(judgePromptOf({ promptVersion: undefined, template: undefined }).version).toBe(
      JUDGE_PROMPT_VERSION,
    );
    const own = judgePromptOf({ promptVersion: "mine-2", template: "Score {{reply}}" });
    expect(own).toMatchObject({ version: "mine-2", template: "Score {{reply}}" });
    expect(own.hash).not.toBe(
      judgePromptOf({ promptVersion: undefined, template: undefined }).hash,
    );
    expect(() => judgePromptOf({ promptVersion: "personagym-0", template: undefined })).toThrow(
      /asks for judge prompt personagym-0/u,
    );
  });
});
