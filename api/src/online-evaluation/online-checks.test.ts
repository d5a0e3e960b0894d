import { describe, expect, it } from "vitest";
import { parseEvaluationSuite } from "../evaluation/evaluation-suite.js";
import { judgeCanaryScore } from "../personas/canary-watch.js";
import type { Persona } from "../personas/persona.js";
import type { RunningCanary } from "../personas/persona-canary-store.js";
import { readExamplePersona } from "../seed/demo-seed.js";
import { metAvoidTopic, runOnlineChecks } from "./online-checks.js";
import type { OnlineScore } from "./online-score-store.js";
import { referenceFreeChecks, type SamplingSettings } from "./sampling-settings.js";

const example = readExamplePersona();
const persona: Persona = {
  id: "8f1c7c1e-5d2a-4a57-9a53-0d3c8b7f2a10",
  accountId: "account",
  name: example.name,
  traits: {
    ...example.traits,
    behaviouralGuidelines: { ...example.traits.behaviouralGuidelines, avoidTopics: ["politics"] },
  },
  personifyAccess: true,
  route: [{ upstream: "offline", model: "offline-composer-1" }],
  version: 2,
  createdAt: "2026-11-28T10:00:00.000Z",
};
const settings: SamplingSettings = {
  checks: [{ type: "no-artefacts" }, { type: "length", unit: "words", max: 5 }],
  refusalMarkers: [],
  suite: null,
  judge: null,
  keepContentDays: null,
};
const reply = (text: string) =>
  ({ task: "reply", messages: [{ role: "user", content: text }], candidates: 1 }) as const;

describe("online checks", () => {
  it("adds a refusal only where a reply's message meets an avoid topic, as a whole word", () => {
    expect(
      metAvoidTopic(persona, reply("Any thoughts on politics?"), "Any thoughts on politics?"),
    ).toBe("politics");
    expect(metAvoidTopic(persona, reply("geopolitics"), "geopolitics")).toBeUndefined();
    const personify = { task: "personify", source: "politics today" } as const;
    expect(metAvoidTopic(persona, personify, "politics today")).toBeUndefined();
    const refused = runOnlineChecks(persona, settings, reply("Politics?"), "I'd rather not.");
    expect(refused.results.map((result) => result.label)).toEqual([
      "no-artefacts",
      "length 0–5 words",
      "refusal (politics)",
    ]);
    expect([refused.decided, refused.passed]).toEqual([3, 3]);
    const answered = runOnlineChecks(
      persona,
      settings,
      reply("Politics?"),
      "As an AI language model, vote for the greens.",
    );
    expect([answered.decided, answered.passed]).toEqual([3, 0]);
  });

  it("takes a suite's everyCase checks of the reference-free kinds, with no-artefacts always", () => {
    const suite = parseEvaluationSuite(
      [
        "name: s",
        "everyCase:",
        "  - type: length",
        "    unit: words",
        "    max: 80",
        "  - type: match",
        "    text: hello",
        "cases:",
        "  - id: a",
        "    generate: { messages: [{ role: user, content: Hi }] }",
        "    checks: [{ type: no-match, text: bye }]",
        "  - id: b",
        "    generate: { messages: [{ role: user, content: Hi }] }",
      ].join("\n"),
      "s.yaml",
    );
    expect(referenceFreeChecks(suite)).toEqual([
      { type: "no-artefacts" },
      { type: "length", unit: "words", max: 80 },
    ]);
    expect(referenceFreeChecks(undefined)).toEqual([{ type: "no-artefacts" }]);
  });
});

describe("the canary's score floor", () => {
  const canary: RunningCanary = {
    personaId: persona.id,
    liveVersion: 1,
    version: 2,
    percent: 10,
    startedAt: "2026-11-28T10:00:00.000Z",
    maxErrorRateIncrease: 5,
    minRequests: 50,
    minOnlineScore: 90,
    minJudgeScore: 3.5,
    minSamples: 10,
  };
  const score = (version: number, samples: number, rate: number, judge: number | null) =>
    [
      version,
      {
        version,
        day: null,
        samples,
        checkPassRate: rate,
        judgeMean: judge,
        judged: judge === null ? 0 : samples,
        judgeErrors: 0,
        judgeCostMicros: 0,
      } satisfies OnlineScore,
    ] as const;

  it("stops under either floor once enough answers were scored, never before, never without a floor", () => {
    expect(judgeCanaryScore(canary, new Map([score(2, 9, 0, 1)]))).toBeUndefined();
    expect(judgeCanaryScore(canary, new Map([score(2, 10, 95, 4)]))).toBeUndefined();
    expect(
      judgeCanaryScore(canary, new Map([score(2, 10, 80, 4), score(1, 30, 100, 4.5)])),
    ).toMatchObject({
      reason: "online_score",
      floor: "checks",
      canary: { checkPassRate: 80 },
      live: { checkPassRate: 100 },
    });
    expect(judgeCanaryScore(canary, new Map([score(2, 10, 95, 3)]))).toMatchObject({
      floor: "judge",
    });
    const noFloor = { ...canary, minOnlineScore: null, minJudgeScore: null };
    expect(judgeCanaryScore(noFloor, new Map([score(2, 100, 0, 1)]))).toBeUndefined();
  });
});
