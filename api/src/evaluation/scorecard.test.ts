import { describe, expect, it } from "vitest";
import type { CaseRun, CheckResult, EvaluationRun } from "./evaluation-run.js";
import { parseEvaluationSuite } from "./evaluation-suite.js";
import { COMPARISON_LEGEND, renderComparison } from "./render-scorecard.js";
import { buildScorecard, compareScorecards, rubricPercent } from "./scorecard.js";

const suite = parseEvaluationSuite(
  [
    "name: small",
    "cases:",
    "  - id: hello",
    "    generate: { messages: [{ role: user, content: Hi }] }",
    "    checks: [{ type: match, text: hello }, { type: judge, dimensions: [persona_consistency] }]",
    "  - id: bye",
    "    generate: { messages: [{ role: user, content: Bye }] }",
    "    checks: [{ type: no-artefacts }]",
  ].join("\n"),
  "small.yaml",
);

type Outcome = [CheckResult["outcome"], string, number?];

/** One case run with its checks' outcomes (and a persona_consistency score for a judged one). */
function caseRun(caseId: string, repeat: number, outcomes: Outcome[]): CaseRun {
  return {
    caseId,
    repeat,
    task: "generate",
    reply: "a reply",
    error: null,
    answeredBy: "up:model",
    latencyMs: 10,
    costMicros: 100,
    judgeCostMicros: 0,
    checks: outcomes.map(([outcome, detail, score], index) => ({
      index,
      type: score === undefined ? "match" : "judge",
      label:
        caseId === "bye" ? "no-artefacts" : score === undefined ? 'match "hello"' : "judge ≥ 3",
      outcome,
      detail,
      ...(score === undefined ? {} : { scores: { persona_consistency: score } }),
    })),
  };
}

function run(side: "candidate" | "baseline", version: number, cases: CaseRun[]): EvaluationRun {
  return {
    side,
    personaId: "p",
    version,
    route: ["up:model"],
    suite: { name: suite.name, hash: suite.hash },
    judge: { route: "judge:model", promptVersion: "personagym-1", promptHash: "abc" },
    judgeSkipped: null,
    repeat: 2,
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T00:00:01.000Z",
    cases,
    scorecard: buildScorecard(suite, cases),
  };
}

// The candidate: "hello" matched once in two (50%), judged 4 and 4; "bye" clean.
const candidate = run("candidate", 2, [
  caseRun("hello", 1, [
    ["fail", 'does not contain "hello"'],
    ["pass", "", 4],
  ]),
  caseRun("bye", 1, [["pass", ""]]),
  caseRun("hello", 2, [
    ["pass", ""],
    ["pass", "", 4],
  ]),
  caseRun("bye", 2, [["pass", ""]]),
]);
// The baseline: "hello" always matched, judged 5 and 5; "bye" with an artefact once.
const baseline = run("baseline", 1, [
  caseRun("hello", 1, [
    ["pass", ""],
    ["pass", "", 5],
  ]),
  caseRun("bye", 1, [["fail", 'starts with "Assistant:"']]),
  caseRun("hello", 2, [
    ["pass", ""],
    ["pass", "", 5],
  ]),
  caseRun("bye", 2, [["fail", "second problem"]]),
]);

describe("compareScorecards", () => {
  it("puts checks' pass rates and rubric means on one percent scale, candidate − baseline", () => {
    expect(rubricPercent(1)).toBe(0);
    expect(rubricPercent(5)).toBe(100);
    const comparison = compareScorecards(candidate.scorecard, baseline.scorecard, null);
    expect(
      comparison.checks.map((row) => [row.label, row.candidate, row.baseline, row.delta]),
    ).toEqual([
      ['hello › match "hello"', 50, 100, -50],
      ["hello › judge ≥ 3", 100, 100, 0],
      ["bye › no-artefacts", 100, 0, 100],
    ]);
    // Only the dimension scored: 4 against 5 is one score step, 25 points.
    expect(
      comparison.dimensions.map((row) => [row.label, row.candidate, row.baseline, row.delta]),
    ).toEqual([["persona_consistency", 75, 100, -25]]);
    expect(comparison.regressions).toEqual([]);
  });

  it("counts a row that many points or more below the baseline as a regression, and never one at or above it", () => {
    const keys = (maxRegression: number) =>
      compareScorecards(candidate.scorecard, baseline.scorecard, maxRegression).regressions.map(
        (row) => row.key,
      );
    expect(keys(0)).toEqual(["hello#0", "persona_consistency"]);
    expect(keys(25)).toEqual(["hello#0", "persona_consistency"]);
    expect(keys(25.5)).toEqual(["hello#0"]);
    expect(keys(50)).toEqual(["hello#0"]);
    expect(keys(50.5)).toEqual([]);
    // The other way round, the same rows are improvements and "bye" regressed by 100.
    expect(
      compareScorecards(baseline.scorecard, candidate.scorecard, 100).regressions.map((row) => [
        row.key,
        row.delta,
      ]),
    ).toEqual([["bye#0", -100]]);
  });
});

describe("renderComparison", () => {
  it("names the columns candidate and baseline, marks rows relative to the baseline, keeps each side's first problem, and judges only the candidate", () => {
    const text = renderComparison(
      candidate,
      baseline,
      0.9,
      compareScorecards(candidate.scorecard, baseline.scorecard, 30),
    );
    expect(text).toContain("candidate: p (version 2) along up:model");
    expect(text).toContain("baseline: p (version 1) along up:model");
    expect(text).toMatch(
      /^check\s+candidate\s+baseline\s+Δ\s+candidate's first problem\s+baseline's first problem$/mu,
    );
    expect(text).toMatch(
      /^hello › match "hello"\s+50%\s+100%\s+-50\s+▼ regressed\s+does not contain "hello"$/mu,
    );
    expect(text).toMatch(/^hello › judge ≥ 3\s+100%\s+100%\s+0$/mu);
    expect(text).toMatch(
      /^bye › no-artefacts\s+100%\s+0%\s+\+100\s+▲\s+starts with "Assistant:"$/mu,
    );
    expect(text).toMatch(/^persona_consistency\s+4\.00 ± 0\.00\s+5\.00 ± 0\.00\s+-25\s+▼$/mu);
    expect(text).toContain(COMPARISON_LEGEND);
    expect(text).toContain("candidate FAIL: pass rate 83.3% (threshold 90%)");
    expect(text).toContain(
      "baseline (compared, not judged): pass rate 66.7%, below the threshold 90%",
    );
    expect(text).toContain(
      'candidate regressions (30 points or more below the baseline): hello › match "hello" -50',
    );
  });
});
