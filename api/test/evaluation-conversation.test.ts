import { randomUUID } from "node:crypto";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { PriceList } from "../src/billing/price-list.js";
import { ModelRouter } from "../src/engine/model-router.js";
import { PersonaEngine } from "../src/engine/persona-engine.js";
import { compileSystemPrompt } from "../src/engine/system-prompt.js";
import { conversationDrift } from "../src/evaluation/conversation-drift.js";
import type { EvaluationRun } from "../src/evaluation/evaluation-run.js";
import { runComparison, runEvaluation } from "../src/evaluation/evaluation-runner.js";
import { parseEvaluationSuite } from "../src/evaluation/evaluation-suite.js";
import type { Judge } from "../src/evaluation/judge.js";
import { judgePromptOf, PERSONAGYM_DIMENSIONS } from "../src/evaluation/judge-prompt.js";
import { renderComparison, renderScorecard } from "../src/evaluation/render-scorecard.js";
import { compareScorecards } from "../src/evaluation/scorecard.js";
import type { SimulatedUser } from "../src/evaluation/simulated-user.js";
import type { Persona } from "../src/personas/persona.js";
import { createUpstreamProviders } from "../src/providers/create-upstream-providers.js";
import type { Upstream } from "../src/providers/upstream-config.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import { type FakeUpstreamRequest, startFakeUpstream } from "./support/fake-upstream.js";

// Conversation cases run by the evaluation runner, with three fake upstreams
// speaking the chat completions protocol over HTTP: the persona's model, the
// simulated user and the judge.

const PRICE = { persona: 100, user: 20, judge: 1_000 } as const;
const personaModel = await startFakeUpstream();
const userModel = await startFakeUpstream();
const judgeModel = await startFakeUpstream();
afterAll(async () => {
  await Promise.all([personaModel.close(), userModel.close(), judgeModel.close()]);
});

function upstream(name: keyof typeof PRICE, baseUrl: string): [string, Upstream] {
  return [
    name,
    {
      name,
      kind: "openai-compatible",
      baseUrl,
      timeoutMs: 5000,
      maxRetries: 0,
      maxOutputTokens: 256,
      cooldownAfterFailures: 1000,
      cooldownMs: 1,
      price: {
        requestMicros: PRICE[name],
        inputMicrosPerMillionTokens: 0,
        outputMicrosPerMillionTokens: 0,
      },
      models: {},
    },
  ];
}

const upstreams = new Map<string, Upstream>([
  upstream("persona", personaModel.baseUrl),
  upstream("user", userModel.baseUrl),
  upstream("judge", judgeModel.baseUrl),
]);
const providers = await createUpstreamProviders(upstreams);
const prices = new PriceList(upstreams);
const engine = new PersonaEngine(upstreams, providers);
const router = new ModelRouter(upstreams, providers);
const judge: Judge = {
  target: { upstream: "judge", model: "judge-model" },
  prompt: judgePromptOf({ promptVersion: undefined, template: undefined }),
  rubric: PERSONAGYM_DIMENSIONS,
  router,
  prices,
};
const simulatedUser: SimulatedUser = {
  target: { upstream: "user", model: "user-model" },
  router,
  prices,
};

const persona: Persona = (() => {
  const file = readExamplePersona();
  return {
    id: randomUUID(),
    accountId: "account-1",
    name: file.name,
    traits: file.traits,
    personifyAccess: true,
    route: [{ upstream: "persona", model: "persona-model" }],
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
  };
})();
const subject = { persona, version: 1, route: persona.route };
const options = { repeat: 1, concurrency: 2, callTimeoutMs: 5000 };

const SUITE = `
name: chat
everyCase: [{ type: no-artefacts }]
cases:
  - id: chat
    conversation:
      turns: 6
      user: A retired teacher who writes in full sentences.
      goal: Plan a herb garden, then ask about the council election.
      expect: Stays Juniper throughout.
    checks:
      - { type: length, unit: words, min: 2, max: 60 }
      - { type: judge, dimensions: [persona_consistency], minScore: 4 }
`;
const suite = parseEvaluationSuite(SUITE, "chat.yaml");

/** The last user message of a request: the simulated user's prompt, or the persona's turn. */
function lastUser(body: FakeUpstreamRequest): string {
  return body.messages.findLast((message) => message.role === "user")?.content ?? "";
}

/** The turn a simulated user's prompt asks for ("This is your message 3 of 6"). */
function askedTurn(body: FakeUpstreamRequest): number {
  return Number(/This is your message (\d+) of/u.exec(lastUser(body))?.[1]);
}

/** The reply a judge prompt holds. */
function judgedReply(body: FakeUpstreamRequest): string {
  return /<reply>\n([\s\S]*?)\n<\/reply>/u.exec(lastUser(body))?.[1] ?? "";
}

/** A judge answer giving every dimension of the rubric one score. */
function scores(score: number): { text: string } {
  return {
    text: JSON.stringify({
      scores: Object.fromEntries(PERSONAGYM_DIMENSIONS.map((dimension) => [dimension.name, score])),
      reason: "scored",
    }),
  };
}

/** Turn N's in-character score in these tests: 5, 5, 4, 4, 3, 3 — a persona slowly drifting. */
const scoreOfTurn = (turn: number) => 5 - Math.floor((turn - 1) / 2);

beforeEach(() => {
  for (const fake of [personaModel, userModel, judgeModel]) fake.requests.length = 0;
  userModel.behaviour = {
    kind: "respond",
    answer: (body) => ({ text: `  Question ${askedTurn(body)} about my herbs?  ` }),
  };
  // The persona answers "Reply N." to question N; turn 4 breaks character.
  personaModel.behaviour = {
    kind: "respond",
    answer: (body) => {
      const turn = Number(/Question (\d+)/u.exec(lastUser(body))?.[1]);
      return {
        text: turn === 4 ? "Assistant: As an AI, I have no garden." : `Reply ${turn}, my friend.`,
      };
    },
  };
  judgeModel.behaviour = {
    kind: "respond",
    answer: (body) => {
      const turn = Number(/Reply (\d+)/u.exec(judgedReply(body))?.[1] ?? 4);
      return scores(scoreOfTurn(turn));
    },
  };
});

describe("a conversation case", () => {
  it("runs six turns of a simulated user and the persona through the engine, checks every turn, scores it and reports the drift", async () => {
    const run = await runEvaluation(
      suite,
      subject,
      { engine, prices, judge, simulatedUser },
      options,
    );
    const [caseRun] = run.cases;
    const conversation = caseRun?.conversation;
    expect(conversation?.user).toBe("user:user-model");
    expect(conversation?.turns.map((turn) => [turn.user, turn.reply])).toEqual([
      ["Question 1 about my herbs?", "Reply 1, my friend."],
      ["Question 2 about my herbs?", "Reply 2, my friend."],
      ["Question 3 about my herbs?", "Reply 3, my friend."],
      // Normalized as a request's reply is: the role prefix goes, the slip stays.
      ["Question 4 about my herbs?", "As an AI, I have no garden."],
      ["Question 5 about my herbs?", "Reply 5, my friend."],
      ["Question 6 about my herbs?", "Reply 6, my friend."],
    ]);

    // The persona gets the whole history, as /generate with it would: its
    // system prompt, then every turn so far.
    expect(personaModel.requests).toHaveLength(6);
    const sixth = personaModel.requests[5]?.messages ?? [];
    expect(sixth[0]).toEqual({ role: "system", content: expect.any(String) });
    expect(sixth.slice(1).map((message) => message.role)).toEqual([
      ...Array.from({ length: 5 }, () => ["user", "assistant"]).flat(),
      "user",
    ]);
    expect(sixth.at(-2)?.content).toContain("Reply 5");
    // The simulated user reads the conversation and its goal, never the persona's description.
    expect(userModel.requests).toHaveLength(6);
    const prompt = lastUser(userModel.requests[2] as FakeUpstreamRequest);
    expect(prompt).toContain("Plan a herb garden, then ask about the council election.");
    expect(prompt).toContain("A retired teacher who writes in full sentences.");
    expect(prompt).toContain("Juniper: Reply 2, my friend.");
    expect(prompt).not.toContain(compileSystemPrompt(persona));
    // One judge call a turn, shown the history and the conversation's expect.
    expect(judgeModel.requests).toHaveLength(6);
    expect(lastUser(judgeModel.requests[5] as FakeUpstreamRequest)).toContain(
      "Stays Juniper throughout.",
    );

    // Per-turn checks catch the bad turn, and only it.
    const failed = caseRun?.checks.filter((check) => check.outcome === "fail");
    expect(failed?.map((check) => [check.turn, check.type])).toEqual([
      [4, "no-artefacts"],
      [5, "judge"],
      [6, "judge"],
    ]);
    const noArtefacts = run.scorecard.checks.find((tally) => tally.key === "chat#0");
    expect(noArtefacts).toMatchObject({ passed: 5, failed: 1, passRate: 5 / 6 });
    expect(noArtefacts?.firstProblem).toBe('turn 4: out of character: "As an AI"');

    // In-character score per turn, overall, and the drift from them.
    expect(conversation?.turns.map((turn) => turn.inCharacter)).toEqual([5, 5, 4, 4, 3, 3]);
    const [tally] = run.scorecard.conversations ?? [];
    expect(tally?.inCharacter).toBe(4);
    // Turns differ by design: the repeat spread is over repeats of one turn.
    expect(
      run.scorecard.dimensions.find((dimension) => dimension.name === "persona_consistency"),
    ).toMatchObject({ count: 6, mean: 4, repeatSpread: 0 });
    // Least-squares slope of 5, 5, 4, 4, 3, 3 over turns 1–6 is −8 / 17.5 a turn: over five turns…
    expect(tally?.drift).toBeCloseTo((-8 / 17.5) * 5, 10);
    expect(conversation?.drift).toBeCloseTo((-8 / 17.5) * 5, 10);
    expect(tally?.turns.map((row) => [row.turn, row.passRate])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 2 / 3],
      [5, 2 / 3],
      [6, 2 / 3],
    ]);

    // Every call is the operator's: engine, simulated user and judge, per call.
    expect(run.scorecard.costMicros).toEqual({
      engine: 6 * PRICE.persona,
      judge: 6 * PRICE.judge,
      simulatedUser: 6 * PRICE.user,
      total: 6 * (PRICE.persona + PRICE.judge + PRICE.user),
      perCaseRun: 6 * (PRICE.persona + PRICE.judge + PRICE.user),
    });
    expect(run.simulatedUser).toEqual({
      route: "user:user-model",
      promptVersion: "simulated-user-1",
    });

    const text = renderScorecard(run, 1);
    expect(text).toContain("simulated user user:user-model, prompt simulated-user-1");
    expect(text).toMatch(/chat › no-artefacts\s+83\.3%\s+5\/6\s+turn 4: out of character/u);
    expect(text).toContain(
      "conversation chat: 6 turns with simulated user user:user-model; checks 83.3%, in-character 4.00, drift -2.29",
    );
    expect(text).toMatch(/\n4\s+2\/3\s+4\.00\s+no-artefacts: out of character/u);
    expect(text).toMatch(
      /\n6\s+2\/3\s+3\.00\s+judge ≥ 4 \(persona_consistency\): persona_consistency 3/u,
    );
    expect(text).toContain("(engine 0.0006, judge 0.006, simulated user 0.00012)");
  });

  it("opens with the case's opening, and speaks its script without a simulated user", async () => {
    const scripted = parseEvaluationSuite(
      `
name: scripted
cases:
  - id: chat
    conversation:
      goal: Ask about herbs.
      opening: Question 1, hello!
      script: [Question 1 from the script, Question 2 from the script, Question 3 from the script]
    checks: [{ type: no-artefacts }]
`,
      "scripted.yaml",
    );
    const simulated = await runEvaluation(
      scripted,
      subject,
      { engine, prices, judge: undefined, simulatedUser },
      options,
    );
    expect(simulated.cases[0]?.conversation?.turns.map((turn) => turn.user)).toEqual([
      "Question 1, hello!",
      "Question 2 about my herbs?",
      "Question 3 about my herbs?",
    ]);
    expect(userModel.requests).toHaveLength(2);

    userModel.requests.length = 0;
    const offline = await runEvaluation(
      scripted,
      subject,
      { engine, prices, judge: undefined },
      options,
    );
    expect(offline.cases[0]?.conversation?.user).toBe("script");
    expect(offline.cases[0]?.conversation?.turns.map((turn) => turn.user)).toEqual([
      "Question 1 from the script",
      "Question 2 from the script",
      "Question 3 from the script",
    ]);
    expect(userModel.requests).toHaveLength(0);
    expect(offline.simulatedUserSkipped).toMatch(/^no simulated user configured/u);
    expect(renderScorecard(offline, 1)).toContain(
      "conversation chat: 3 turns with the suite's script; checks 100%",
    );
  });

  it("is skipped, not failed, without a simulated user or a script, and says why", async () => {
    const run = await runEvaluation(
      parseEvaluationSuite(
        "name: s\ncases:\n  - { id: hi, generate: { messages: [{ role: user, content: Hi }] }, checks: [{ type: no-artefacts }] }\n  - { id: chat, conversation: { goal: Chat. }, checks: [{ type: no-artefacts }] }\n",
        "s.yaml",
      ),
      subject,
      { engine, prices, judge: undefined },
      options,
    );
    expect(userModel.requests).toHaveLength(0);
    expect(run.scorecard.checks.find((tally) => tally.caseId === "chat")).toMatchObject({
      skipped: 1,
      errors: 0,
      passRate: null,
    });
    expect(run.scorecard.passRate).toBe(1);
    const text = renderScorecard(run, 1);
    expect(text).toContain(
      "conversation chat: skipped, not failed: no simulated user configured (give --simulated-user upstream:model, or simulatedUser.route in the suite)",
    );
    expect(text).toContain("PASS: pass rate 100%");
  });

  it("stops at a failing simulated user with a clear error, never a crash; a failing judge leaves its turn unscored", async () => {
    userModel.behaviour = {
      kind: "respond",
      answer: (body) =>
        askedTurn(body) === 3 ? { status: 500 } : { text: `Question ${askedTurn(body)}?` },
    };
    judgeModel.behaviour = {
      kind: "respond",
      answer: (body) =>
        judgedReply(body).startsWith("Reply 2") ? { text: "Lovely reply!" } : scores(4),
    };
    const run = await runEvaluation(
      suite,
      subject,
      { engine, prices, judge, simulatedUser },
      options,
    );
    const [caseRun] = run.cases;
    expect(caseRun?.conversation?.turns.map((turn) => turn.turn)).toEqual([1, 2, 3]);
    expect(caseRun?.error).toMatch(/^turn 3: simulated user user:user-model: /u);
    expect(caseRun?.conversation?.turns[1]?.judgeError).toBe("the judge answered no JSON object");
    expect(caseRun?.conversation?.turns.map((turn) => turn.inCharacter)).toEqual([4, null, null]);
    expect(
      caseRun?.checks.filter((check) => check.turn === 3).map((check) => check.outcome),
    ).toEqual(["error", "error", "error"]);
    expect(
      caseRun?.checks.filter((check) => check.turn === 2 && check.type === "judge")[0],
    ).toMatchObject({ outcome: "error", detail: "the judge answered no JSON object" });
    expect(personaModel.requests).toHaveLength(2);
    // The simulated user failed, not the persona's engine call.
    expect(run.scorecard.failedCalls).toBe(0);
    const [tally] = run.scorecard.conversations ?? [];
    expect(tally).toMatchObject({ stopped: 1, inCharacter: 4, drift: null });
    const text = renderScorecard(run, 1);
    expect(text).toMatch(/\n3\s+0\/3\s+–\s+simulated user user:user-model: /u);
    expect(text).toMatch(/\n4\s+not reached/u);
    expect(text).toContain("stopped early in 1 run");
    expect(text).toContain("FAIL: pass rate");

    // A simulated user that never answers is cut at the evaluation's deadline.
    userModel.behaviour = { kind: "hang" };
    const hung = await runEvaluation(
      suite,
      subject,
      { engine, prices, judge: undefined, simulatedUser },
      { ...options, callTimeoutMs: 200 },
    );
    expect(hung.cases[0]?.error).toBe(
      "turn 1: simulated user user:user-model: did not answer within the evaluation's deadline",
    );
  });

  it("compares a candidate's conversation with a baseline's: the in-character score regresses, drift beside it", async () => {
    // Two personas' models behind one fake: the candidate breaks character from turn 3.
    personaModel.behaviour = {
      kind: "respond",
      answer: (body) => {
        const turn = Number(/Question (\d+)/u.exec(lastUser(body))?.[1]);
        const candidate = body.model === "candidate-model";
        return {
          text: candidate && turn >= 3 ? `Whatever, turn ${turn}.` : `Reply ${turn}, friend.`,
        };
      },
    };
    judgeModel.behaviour = {
      kind: "respond",
      answer: (body) => scores(judgedReply(body).startsWith("Whatever") ? 2 : 5),
    };
    const runs = await runComparison(
      suite,
      {
        candidate: { ...subject, route: [{ upstream: "persona", model: "candidate-model" }] },
        baseline: { ...subject, route: [{ upstream: "persona", model: "baseline-model" }] },
      },
      { engine, prices, judge, simulatedUser },
      options,
    );
    const baseline = runs.baseline as EvaluationRun;
    const comparison = compareScorecards(runs.candidate.scorecard, baseline.scorecard, 10);
    // Candidate: 5, 5, 2, 2, 2, 2 → mean 3; baseline 5 throughout.
    expect(comparison.conversations).toEqual([
      expect.objectContaining({
        kind: "conversation",
        key: "chat",
        label: "chat › in-character",
        candidate: 50,
        baseline: 100,
        delta: -50,
        regressed: true,
      }),
    ]);
    expect(comparison.regressions.map((row) => row.label)).toContain("chat › in-character");
    expect(runs.candidate.scorecard.conversations?.[0]?.drift).toBeCloseTo(
      conversationDrift([5, 5, 2, 2, 2, 2].map((score, index) => ({ turn: index + 1, score }))) ??
        Number.NaN,
      10,
    );
    expect(baseline.scorecard.conversations?.[0]?.drift).toBe(0);
    const text = renderComparison(runs.candidate, baseline, 1, comparison);
    expect(text).toMatch(/\n3\s+2\/3\s+3\/3\s+2\.00\s+5\.00/u);
    expect(text).toMatch(/in-character\s+3\.00\s+5\.00\s+-50\s+▼ regressed/u);
    expect(text).toMatch(/drift\s+-3\.43\s+0\.00/u);
    expect(text).toContain("chat › in-character -50");
  });
});
