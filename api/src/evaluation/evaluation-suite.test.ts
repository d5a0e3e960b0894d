import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  EvaluationSuiteError,
  parseEvaluationSuite,
  readEvaluationSuite,
  SUITE_LIMITS,
} from "./evaluation-suite.js";
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
    [
      "name: s\ncases: [{ id: a }]",
      /cases\.0: give exactly one of generate, personify or conversation/u,
    ],
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
      "name: s\ncases: [{ id: greeting, personify: { source: x }, checks: [{ type: no-artefacts }, { type: match, pattern: '(\\w+) \\1' }] }]",
      /suite\.yaml: case greeting: cases\.0\.checks\.1\.pattern: a backreference \(\\1\) is not supported: suite patterns run on a linear-time engine \(RE2\)/u,
    ],
    [
      "name: s\ncases: [{ id: a, personify: { source: x }, checks: [{ type: no-match, pattern: 'sure(?! not)' }] }]",
      /case a: cases\.0\.checks\.0\.pattern: a lookahead \(\(\?! not\)\) is not supported/u,
    ],
    [
      "name: s\nrefusalMarkers: ['(?<=I )decline']\ncases: [{ id: a, personify: { source: x } }]",
      /suite\.yaml: refusalMarkers\.0: a lookbehind/u,
    ],
    [
      "name: s\ncases: [{ id: a, personify: { source: x }, checks: [{ type: instructions-ignored, obeyed: ['x{2000}'] }] }]",
      /case a: cases\.0\.checks\.0\.obeyed\.0: not supported: invalid repeat count/u,
    ],
    [
      `name: s\ncases: [{ id: a, personify: { source: x }, checks: [{ type: match, pattern: '${"a".repeat(501)}' }] }]`,
      /cases\.0\.checks\.0\.pattern: Too big: expected string to have <=500 characters/u,
    ],
    [
      "name: s\nname: t\ncases: [{ id: a, personify: { source: x } }]",
      /suite\.yaml: not valid YAML or JSON: name is given twice in one mapping/u,
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

describe("conversation cases", () => {
  const conversation = (spec: string, extra = "") =>
    `name: s\ncases:\n  - { id: greeting, generate: { messages: [{ role: user, content: Hi }] } }\n  - { id: long-chat, conversation: ${spec}${extra} }\n`;

  it("reads a conversation: turns (default 6, or the script's length), goal, user, opening, script, expect; a simulated user route", () => {
    const suite = parse(
      `name: s
simulatedUser: { route: "sim:gpt-4o-mini" }
everyCase: [{ type: no-artefacts }]
cases:
  - id: chat
    conversation:
      turns: 3
      goal: Get help with tomatoes.
      user: A beginner.
      opening: Hello!
      script: [One, Two, Three]
      expect: Helpful throughout.
      dimensions: [persona_consistency]
    checks: [{ type: judge, minScore: 4 }]
  - { id: short, conversation: { goal: Chat. } }
  - { id: scripted, conversation: { goal: Chat., script: [a, b] } }
`,
    );
    expect(suite.simulatedUser.route).toEqual({ upstream: "sim", model: "gpt-4o-mini" });
    expect(suite.cases[0]).toMatchObject({
      task: "conversation",
      conversation: {
        turns: 3,
        goal: "Get help with tomatoes.",
        user: "A beginner.",
        opening: "Hello!",
        script: ["One", "Two", "Three"],
        expect: "Helpful throughout.",
        dimensions: ["persona_consistency"],
      },
      checks: [{ type: "no-artefacts" }, { type: "judge", minScore: 4 }],
    });
    expect(suite.cases[1]).toMatchObject({ conversation: { turns: 6, script: undefined } });
    expect(suite.cases[2]).toMatchObject({ conversation: { turns: 2 } });
    expect(
      parse(conversation(`{ goal: Chat., turns: ${SUITE_LIMITS.conversationTurns} }`)).cases[1],
    ).toMatchObject({
      conversation: { turns: 20 },
    });
  });

  it.each([
    ["{ goal: Chat., turns: 0 }", "conversation.turns: turns is a whole number from 1 to 20"],
    ["{ goal: Chat., turns: 21 }", "conversation.turns: turns is a whole number from 1 to 20"],
    ["{ goal: Chat., turns: 2.5 }", "conversation.turns: turns is a whole number from 1 to 20"],
    ["{ goal: Chat., turns: six }", "conversation.turns: turns is a whole number from 1 to 20"],
    [
      "{ turns: 6 }",
      "conversation.goal: a conversation needs a goal: what the simulated user is after",
    ],
    ["{ goal: '  ' }", "conversation.goal: goal is empty"],
    [
      "{ goal: Chat., turns: 3, script: [a, b] }",
      "conversation.script: script holds 2 messages for 3 turns: give one a turn",
    ],
    [
      `{ goal: Chat., script: [${Array.from({ length: 21 }, () => "a").join(", ")}] }`,
      "conversation.script: script holds at most 20 messages (one a turn)",
    ],
    ["{ goal: Chat., mood: sunny }", "conversation: Unrecognized key"],
    [
      "{ goal: Chat., dimensions: [charm] }",
      "conversation.dimensions: charm is not a dimension of the rubric",
    ],
    [
      "{ goal: Chat. }, checks: [{ type: judge, expect: Be nice. }]",
      "checks.0.expect: a judged check of a conversation case takes no expect of its own: give conversation.expect",
    ],
    [
      "{ goal: Chat. }, generate: { messages: [{ role: user, content: Hi }] }",
      "give exactly one of generate, personify or conversation",
    ],
  ])("refuses a conversation %s, naming the case and the field", (spec, message) => {
    const text = conversation(spec);
    expect(() => parse(text)).toThrow(EvaluationSuiteError);
    expect(() => parse(text)).toThrow(
      `suite.yaml: case long-chat: cases.1.${message}`.replace(/cases\.1\.give/u, "cases.1: give"),
    );
  });

  it("refuses a simulated user route that is not upstream:model", () => {
    expect(() =>
      parse(
        "name: s\nsimulatedUser: { route: nocolon }\ncases: [{ id: a, conversation: { goal: x } }]",
      ),
    ).toThrow(/suite\.yaml: simulatedUser\.route: /u);
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

describe("suite files", () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "evaluation-suite-"));
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const file = path.join(directory, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const valid = "name: s\ncases: [{ id: a, personify: { source: x } }]\n";

  it("reads a suite up to the size limit", () => {
    const file = write("padded.eval.yaml", valid.padEnd(SUITE_LIMITS.fileBytes, "#"));
    expect(readEvaluationSuite(file).cases).toHaveLength(1);
  });

  it("refuses a file over the limit before parsing it, naming the file and the limit", () => {
    const file = write("large.eval.yaml", valid.padEnd(SUITE_LIMITS.fileBytes + 1, "#"));
    expect(() => readEvaluationSuite(file)).toThrow(EvaluationSuiteError);
    expect(() => readEvaluationSuite(file)).toThrow(
      `${file}: 1,048,577 bytes, larger than a suite may be (1 MiB, 1,048,576 bytes): split it into several suites`,
    );
  });

  it("reads no more than the limit of a file without a size", () => {
    expect(() => readEvaluationSuite("/dev/zero")).toThrow(
      "/dev/zero: more than 1,048,576 bytes, larger than a suite may be (1 MiB",
    );
    expect(() => readEvaluationSuite(path.join(directory, "missing.yaml"))).toThrow(
      /missing\.yaml: cannot read it \(ENOENT\)/u,
    );
    expect(() => readEvaluationSuite(directory)).toThrow(/cannot read it \(EISDIR\)/u);
  });

  it("refuses a mapping of 80,000 keys in seconds, not minutes", { timeout: 30_000 }, () => {
    const keys = Array.from({ length: 80_000 }, (_, index) => `k${index}: 1`).join(", ");
    const file = write("keys.eval.yaml", `name: s\ncases: {${keys}}\n`);
    expect(() => readEvaluationSuite(file)).toThrow(/cases: .*expected array/u);
  });
});
