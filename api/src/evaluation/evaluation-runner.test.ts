import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PriceList } from "../billing/price-list.js";
import { PersonaEngine } from "../engine/persona-engine.js";
import type { Persona } from "../personas/persona.js";
import type { ModelProvider } from "../providers/model-provider.js";
import { createOfflineProvider } from "../providers/offline/offline-provider.js";
import type { Upstream } from "../providers/upstream-config.js";
import { readExamplePersona } from "../seed/demo-seed.js";
import { runComparison, runEvaluation } from "./evaluation-runner.js";
import { exampleSuiteFile, parseEvaluationSuite, readEvaluationSuite } from "./evaluation-suite.js";

function upstream(name: string, kind: Upstream["kind"], requestMicros = 100): Upstream {
  return {
    name,
    kind,
    timeoutMs: 5000,
    maxRetries: 0,
    maxOutputTokens: 64,
    cooldownAfterFailures: 3,
    cooldownMs: 1000,
    price: { requestMicros, inputMicrosPerMillionTokens: 0, outputMicrosPerMillionTokens: 0 },
    models: {},
  };
}

function examplePersona(id: string = randomUUID()): Persona {
  const file = readExamplePersona();
  return {
    id,
    accountId: "account-1",
    name: file.name,
    traits: file.traits,
    personifyAccess: true,
    route: file.route,
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
  };
}

function offlineParts(extra: Array<[string, ModelProvider, Upstream]> = []) {
  const upstreams = new Map<string, Upstream>([["offline", upstream("offline", "offline")]]);
  const providers = new Map<string, ModelProvider>([["offline", createOfflineProvider()]]);
  for (const [name, provider, settings] of extra) {
    upstreams.set(name, settings);
    providers.set(name, provider);
  }
  return { engine: new PersonaEngine(upstreams, providers), prices: new PriceList(upstreams) };
}

const options = { repeat: 1, concurrency: 4, callTimeoutMs: 5000 };

describe("the demo persona's suite on the offline engine", () => {
  it("passes every deterministic check, whatever the persona ID, and skips the judged ones without a judge", async () => {
    const suite = readEvaluationSuite(exampleSuiteFile());
    const { engine, prices } = offlineParts();
    // The offline engine's wording depends on the persona ID: try many.
    for (let attempt = 0; attempt < 40; attempt++) {
      const persona = examplePersona();
      const run = await runEvaluation(
        suite,
        { persona, version: 1, route: persona.route },
        { engine, prices, judge: undefined },
        options,
      );
      const problems = run.scorecard.checks.filter(
        (tally) => tally.passRate !== null && tally.passRate < 1,
      );
      expect(
        problems,
        `${persona.id}: ${JSON.stringify(run.cases.map((item) => item.reply))}`,
      ).toEqual([]);
      expect(run.scorecard.passRate).toBe(1);
      expect(run.judgeSkipped).toMatch(/no judge configured/u);
      const judged = run.scorecard.checks.filter((tally) => tally.label.startsWith("judge"));
      expect(judged.length).toBeGreaterThan(0);
      for (const tally of judged) {
        // A conversation's checks run once a turn.
        const evaluationCase = suite.cases.find((item) => item.id === tally.caseId);
        const runs =
          evaluationCase?.task === "conversation" ? evaluationCase.conversation.turns : 1;
        expect(tally).toMatchObject({ skipped: runs, passRate: null });
      }
      // The demo's conversation speaks its script without a simulated user: six real turns.
      const [chat] = run.scorecard.conversations ?? [];
      expect(chat).toMatchObject({ caseId: "garden-chat", user: "script", skipped: null });
      expect(chat?.turns.map((turn) => turn.passRate)).toEqual([1, 1, 1, 1, 1, 1]);
      expect(chat?.inCharacter).toBeNull();
      expect(chat?.drift).toBeNull();
    }
  });

  it("sums the answering target's price as the operator's cost and reports latency percentiles", async () => {
    const suite = readEvaluationSuite(exampleSuiteFile());
    const { engine, prices } = offlineParts();
    const persona = examplePersona();
    const run = await runEvaluation(
      suite,
      { persona, version: 1, route: persona.route },
      { engine, prices, judge: undefined },
      { ...options, repeat: 2 },
    );
    expect(run.cases).toHaveLength(suite.cases.length * 2);
    // One engine call a case, and one a turn of a conversation case.
    const calls = suite.cases.reduce(
      (sum, item) => sum + (item.task === "conversation" ? item.conversation.turns : 1),
      0,
    );
    expect(run.scorecard.costMicros).toEqual({
      engine: 100 * calls * 2,
      judge: 0,
      simulatedUser: 0,
      total: 100 * calls * 2,
      perCaseRun: Math.round((100 * calls) / suite.cases.length),
    });
    expect(run.scorecard.latencyMs.p95).toBeGreaterThanOrEqual(run.scorecard.latencyMs.p50);
    expect(run.cases.every((item) => item.answeredBy === "offline:offline-composer-1")).toBe(true);
  });
});

describe("runEvaluation", () => {
  const suite = parseEvaluationSuite(
    [
      "name: small",
      "cases:",
      "  - id: hello",
      "    generate: { messages: [{ role: user, content: Hi }] }",
      "    checks: [{ type: match, text: banana }, { type: no-artefacts }]",
    ].join("\n"),
    "small.yaml",
  );

  it("counts a check that fails as a failure, and the call's failure as errors of every check", async () => {
    const hanging: ModelProvider = {
      name: "slow",
      complete: (request) =>
        new Promise((_resolve, reject) =>
          request.signal.addEventListener("abort", () => reject(request.signal.reason)),
        ),
    };
    const { engine, prices } = offlineParts([
      ["slow", hanging, upstream("slow", "openai-compatible")],
    ]);
    const persona = examplePersona();
    const offline = await runEvaluation(
      suite,
      { persona, version: 1, route: persona.route },
      { engine, prices, judge: undefined },
      options,
    );
    expect(offline.scorecard.checks.map((tally) => [tally.label, tally.passRate])).toEqual([
      ['match "banana"', 0],
      ["no-artefacts", 1],
    ]);
    expect(offline.scorecard.passRate).toBe(0.5);

    const slow = await runEvaluation(
      suite,
      { persona, version: 1, route: [{ upstream: "slow", model: "m" }] },
      { engine, prices, judge: undefined },
      { ...options, callTimeoutMs: 150 },
    );
    expect(slow.cases[0]?.error).toMatch(/deadline of 150 ms/u);
    expect(slow.scorecard.failedCalls).toBe(1);
    expect(slow.scorecard.checks.map((tally) => tally.errors)).toEqual([1, 1]);
    expect(slow.scorecard.passRate).toBe(0);
  });

  it("runs at most `concurrency` cases at once", async () => {
    let running = 0;
    let most = 0;
    const counting: ModelProvider = {
      name: "counting",
      async complete() {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running -= 1;
        return { texts: ["Hello there, friend."] };
      },
    };
    const { engine, prices } = offlineParts([
      ["counting", counting, upstream("counting", "openai-compatible")],
    ]);
    const persona = examplePersona();
    const progress: number[] = [];
    await runEvaluation(
      suite,
      { persona, version: 1, route: [{ upstream: "counting", model: "m" }] },
      { engine, prices, judge: undefined },
      {
        repeat: 9,
        concurrency: 3,
        callTimeoutMs: 5000,
        onProgress: ({ done }) => progress.push(done),
      },
    );
    expect(most).toBe(3);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("interleaves a candidate's and a baseline's case runs case by case, alternating which goes first, within one concurrency", async () => {
    const twoCases = parseEvaluationSuite(
      [
        "name: two",
        "cases:",
        "  - { id: one, generate: { messages: [{ role: user, content: Hi }] }, checks: [{ type: no-artefacts }] }",
        "  - { id: two, generate: { messages: [{ role: user, content: Hey }] }, checks: [{ type: no-artefacts }] }",
      ].join("\n"),
      "two.yaml",
    );
    const calls: string[] = [];
    let running = 0;
    let most = 0;
    const recording = (name: string): ModelProvider => ({
      name,
      async complete() {
        calls.push(name);
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return { texts: ["Hello there, friend."] };
      },
    });
    const { engine, prices } = offlineParts([
      ["new", recording("new"), upstream("new", "openai-compatible")],
      ["old", recording("old"), upstream("old", "openai-compatible")],
    ]);
    const persona = examplePersona();
    const progress: string[] = [];
    const sides = {
      candidate: { persona, version: 2, route: [{ upstream: "new", model: "m" }] },
      baseline: { persona, version: 1, route: [{ upstream: "old", model: "m" }] },
    };
    const runs = await runComparison(
      twoCases,
      sides,
      { engine, prices, judge: undefined },
      {
        repeat: 2,
        concurrency: 1,
        callTimeoutMs: 5000,
        onProgress: (step) =>
          progress.push(`${step.done}/${step.total} ${step.side} ${step.caseId}#${step.repeat}`),
      },
    );
    expect(calls).toEqual(["new", "old", "old", "new", "new", "old", "old", "new"]);
    expect(progress).toEqual([
      "1/8 candidate one#1",
      "2/8 baseline one#1",
      "3/8 baseline two#1",
      "4/8 candidate two#1",
      "5/8 candidate one#2",
      "6/8 baseline one#2",
      "7/8 baseline two#2",
      "8/8 candidate two#2",
    ]);
    expect(runs.candidate).toMatchObject({ side: "candidate", version: 2, route: ["new:m"] });
    expect(runs.baseline).toMatchObject({ side: "baseline", version: 1, route: ["old:m"] });
    for (const run of [runs.candidate, runs.baseline]) {
      expect(run?.cases.map((item) => `${item.caseId}#${item.repeat}`)).toEqual([
        "one#1",
        "two#1",
        "one#2",
        "two#2",
      ]);
    }
    expect(runs.candidate.cases.every((item) => item.answeredBy === "new:m")).toBe(true);
    expect(runs.baseline?.cases.every((item) => item.answeredBy === "old:m")).toBe(true);

    // Both sides share the one limit.
    calls.length = 0;
    await runComparison(
      twoCases,
      sides,
      { engine, prices, judge: undefined },
      { repeat: 5, concurrency: 3, callTimeoutMs: 5000 },
    );
    expect(calls).toHaveLength(20);
    expect(most).toBe(3);
  });
});
