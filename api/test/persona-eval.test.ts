import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isolatedEnvironment } from "../../test-support/isolated-process.js";
import { ADMIN_SCRIPT } from "../../test-support/spawn-service.js";
import { JUDGE_PROMPT_VERSION } from "../src/evaluation/judge-prompt.js";
import type { Services } from "../src/services.js";
import { runAdmin } from "./support/admin-in-process.js";
import { startFakeUpstream } from "./support/fake-upstream.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

// `persona-admin persona eval` and `eval-runs` in-process, on both dialects:
// the demo suite on the offline engine, a judge and a candidate model behind
// fake upstreams speaking the chat completions protocol over HTTP.

const JUDGE_PRICE_MICROS = 1_000;
const judge = await startFakeUpstream();
const candidate = await startFakeUpstream();
const simulatedUser = await startFakeUpstream();
const upstreams = writeUpstreamsFile({
  offline: { kind: "offline" },
  judge: {
    kind: "openai-compatible",
    baseUrl: judge.baseUrl,
    apiKeyEnv: "TEST_JUDGE_KEY",
    maxRetries: 0,
    price: { requestMicros: JUDGE_PRICE_MICROS },
  },
  candidate: {
    kind: "openai-compatible",
    baseUrl: candidate.baseUrl,
    apiKeyEnv: "TEST_CANDIDATE_KEY",
    maxRetries: 0,
    price: { requestMicros: 500 },
  },
  user: {
    kind: "openai-compatible",
    baseUrl: simulatedUser.baseUrl,
    apiKeyEnv: "TEST_USER_KEY",
    maxRetries: 0,
    price: { requestMicros: 50 },
  },
});
afterAll(async () => {
  await judge.close();
  await candidate.close();
  await simulatedUser.close();
  upstreams.remove();
});

const ALL_FOURS = JSON.stringify({
  scores: {
    persona_consistency: 4,
    linguistic_habits: 4,
    boundary_adherence: 4,
    expected_action: 4,
    action_justification: 4,
  },
  reason: "In voice and within bounds.",
});

/** Tables whose rows are an account's money, limits and usage. */
const METERED_TABLES = [
  "usage_records",
  "balance_entries",
  "balance_reservations",
  "rate_limit_buckets",
  "usage_daily_totals",
  "balance_daily_totals",
  "x402_payments",
] as const;

await describeEachDialect("persona-admin persona eval", (database) => {
  let services: Services;
  let customer: StoreCustomer;

  beforeAll(async () => {
    services = await openStore(database.url, {
      PERSONA_UPSTREAMS_FILE: upstreams.file,
      TEST_JUDGE_KEY: "judge-key-for-tests",
      TEST_CANDIDATE_KEY: "candidate-key-for-tests",
      TEST_USER_KEY: "user-key-for-tests",
    });
    customer = await createCustomer(services, {
      balanceMicros: 5_000_000,
      limits: { minute: 5, hour: 10, day: 20 },
    });
  });
  afterAll(async () => {
    await closeStore(services);
  });

  const admin = (...args: string[]) => runAdmin(services, ...args);

  /** What metering keeps of an account: balance, reservations, and every metered table's rows. */
  async function meteredState() {
    const counts: Record<string, unknown> = {};
    for (const table of METERED_TABLES) {
      const { rows } = await sql<{
        count: unknown;
      }>`select count(*) as count from ${sql.table(table)}`.execute(services.database);
      counts[table] = Number(rows[0]?.count);
    }
    return {
      balance: await services.billing.balances.balanceOf(customer.accountId),
      ledgerSum: await services.billing.balances.ledgerSum(customer.accountId),
      limits: await services.billing.limits.limitsOfKey(customer.keyId),
      counts,
    };
  }

  it("runs the demo persona's suite on the offline engine: deterministic checks pass, judged ones skipped and said so, nothing metered", async () => {
    const before = await meteredState();
    const result = await admin("persona", "eval", customer.persona.id);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("suite juniper-basics");
    expect(result.stdout).toContain(
      "judged checks skipped: no judge configured (give --judge upstream:model, or judge.route in the suite)",
    );
    expect(result.stdout).toMatch(/avoid-politics › refusal \(politics\)\s+100%\s+1\/1/u);
    expect(result.stdout).toMatch(/greeting › judge ≥ 3\s+–\s+0\/0, 1 skipped/u);
    expect(result.stdout).toMatch(/latency p50 \d+ ms, p95 \d+ ms/u);
    // Seven single-turn cases and the six turns of the conversation, 100 µ a call.
    expect(result.stdout).toContain("operator cost 0.0013 (engine 0.0013, judge 0.00)");
    // Without a simulated user the demo's conversation speaks its script.
    expect(result.stdout).toContain(
      "conversation cases: no simulated user configured (give --simulated-user upstream:model, or simulatedUser.route in the suite): a conversation case speaks its script, or is skipped",
    );
    expect(result.stdout).toContain(
      "conversation garden-chat: 6 turns with the suite's script; checks 100%, in-character –, drift –",
    );
    expect(result.stdout).toMatch(/garden-chat › length 1–120 words\s+100%\s+6\/6/u);
    expect(result.stdout).toContain("PASS: pass rate 100% (threshold 100%)");
    expect(result.stderr).toMatch(/eval candidate offline:offline-composer-1: 8 case runs in/u);
    expect(await meteredState()).toEqual(before);

    const runs = await admin("persona", "eval-runs", customer.persona.id, "--json");
    expect(JSON.parse(runs.stdout)).toEqual([
      expect.objectContaining({
        personaId: customer.persona.id,
        version: 1,
        route: ["offline:offline-composer-1"],
        suiteName: "juniper-basics",
        judge: null,
        passRate: 1,
        threshold: 1,
        passed: true,
        costMicros: 1300,
      }),
    ]);
    expect((await admin("persona", "eval-runs", customer.persona.id)).stdout).toMatch(
      /1\s+offline:offline-composer-1\s+juniper-basics [0-9a-f]{8}\s+100\.0%\s+pass \(≥ 1\)\s+0\.0013/u,
    );
  });

  it("evaluates a draft before it serves anyone, beside the live version; refuses a version the persona does not have and a persona without a suite", async () => {
    candidate.behaviour = { kind: "reply", text: "Assistant: As an AI, I think it's fine." };
    const draft = await services.personas.setRoute(
      customer.persona.id,
      [{ upstream: "candidate", model: "cheap-model" }],
      { draft: true, note: "a cheaper model" },
    );
    expect(draft?.version).toBe(1); // the live version is unchanged
    const compared = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--version",
      "draft",
      "--compare-version",
      "live",
    );
    expect(compared.code).toBe(2);
    expect(compared.stdout).toContain(
      `candidate: ${customer.persona.id} (version 2) along candidate:cheap-model`,
    );
    expect(compared.stdout).toContain(
      `baseline: ${customer.persona.id} (version 1) along offline:offline-composer-1`,
    );
    expect(compared.stdout).toMatch(
      /avoid-politics › refusal \(politics\)\s+0%\s+100%\s+-100\s+▼\s+no refusal of politics found/u,
    );
    expect(compared.stderr).toMatch(
      /\(version 2\) along candidate:cheap-model: pass rate 0\.\d+ is below the threshold 1/u,
    );
    expect((await services.personas.find(customer.persona.id))?.version).toBe(1);

    const missing = await admin("persona", "eval", customer.persona.id, "--version", "7");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`persona ${customer.persona.id} has no version 7`);
    const bad = await admin("persona", "eval", customer.persona.id, "--version", "latest");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/"latest" is not a version/u);
    const both = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--compare-version",
      "live",
      "--compare-route",
      "candidate:cheap-model",
    );
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/compare one thing at a time/u);
    const other = await createCustomer(services, { balanceMicros: 0, persona: { name: "Rowan" } });
    const noSuite = await admin("persona", "eval", other.persona.id);
    expect(noSuite.code).toBe(1);
    expect(noSuite.stderr).toMatch(/give --suite FILE/u);
    expect((await admin("persona", "eval", "00000000-0000-4000-8000-00000000000f")).stderr).toMatch(
      /no persona with ID/u,
    );
  });

  it("scores judged checks through a judge upstream speaking the chat completions protocol, its cost the operator's", async () => {
    judge.behaviour = { kind: "reply", text: `Here you are:\n\`\`\`json\n${ALL_FOURS}\n\`\`\`` };
    const judgedBefore = judge.requests.length;
    const before = await meteredState();
    const result = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--judge",
      "judge:judge-model",
      "--repeat",
      "2",
      "--json",
    );
    expect(result.code, result.stderr).toBe(0);
    const [run] = JSON.parse(result.stdout).runs;
    expect(run.judge).toMatchObject({
      route: "judge:judge-model",
      promptVersion: JUDGE_PROMPT_VERSION,
    });
    expect(run.judgeSkipped).toBeNull();
    expect(run.scorecard.passRate).toBe(1);
    const consistency = run.scorecard.dimensions.find(
      (dimension: { name: string }) => dimension.name === "persona_consistency",
    );
    // Two cases judge every dimension, and the conversation's six turns, each run twice.
    expect(consistency).toMatchObject({
      mean: 4,
      standardDeviation: 0,
      repeatSpread: 0,
      count: 16,
    });
    // Six single-turn cases have a judged check, and the conversation one a
    // turn, each run twice: one judge call each.
    const calls = judge.requests.slice(judgedBefore);
    expect(calls).toHaveLength(24);
    expect(calls[0]?.model).toBe("judge-model");
    expect(judge.authorizations.at(-1)).toBe("Bearer judge-key-for-tests");
    const prompts = calls.map((call) => call.messages[0]?.content ?? "");
    expect(prompts.some((prompt) => prompt.includes("Do not discuss: politics."))).toBe(true);
    expect(prompts.some((prompt) => prompt.includes("- boundary_adherence:"))).toBe(true);
    expect(run.scorecard.costMicros.judge).toBe(24 * JUDGE_PRICE_MICROS);
    expect(run.scorecard.conversations[0]).toMatchObject({
      caseId: "garden-chat",
      user: "script",
      inCharacter: 4,
      drift: 0,
    });
    expect(await meteredState()).toEqual(before);
  });

  it("counts a judge's garbage answers as errors of their checks, not a crash, and exits 2 below the threshold", async () => {
    judge.behaviour = { kind: "reply", text: "What a delightful reply, I'd give it full marks!" };
    const result = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--judge",
      "judge:judge-model",
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(
      /greeting › judge ≥ 3\s+0%\s+0\/1, 1 error\s+the judge answered no JSON object/u,
    );
    expect(result.stdout).toMatch(/FAIL: pass rate [\d.]+% \(threshold 100%\)/u);
    expect(result.stderr).toMatch(/is below the threshold 1/u);

    judge.behaviour = { kind: "status", status: 500 };
    const failing = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--judge",
      "judge:judge-model",
      "--json",
    );
    expect(failing.code).toBe(2);
    const [run] = JSON.parse(failing.stdout).runs;
    const judged = run.scorecard.checks.filter((tally: { label: string }) =>
      tally.label.startsWith("judge"),
    );
    // A conversation's judged check runs once a turn.
    expect(
      judged.every(
        (tally: { caseId: string; errors: number }) =>
          tally.errors === (tally.caseId === "garden-chat" ? 6 : 1),
      ),
    ).toBe(true);
    expect(judged[0].firstProblem).toMatch(/^judge judge:judge-model: the model provider failed/u);
    // The deterministic checks still passed.
    expect(run.scorecard.passRate).toBeGreaterThan(0.5);
  });

  it("compares a candidate route with a baseline route side by side; the exit status follows the candidate alone", async () => {
    candidate.behaviour = { kind: "reply", text: "Assistant: As an AI, I think it's fine." };
    const compared = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--route",
      "candidate:cheap-model",
      "--compare-route",
      "offline:offline-composer-1",
    );
    expect(compared.code).toBe(2);
    expect(compared.stdout).toContain(
      `candidate: ${customer.persona.id} (version 1) along candidate:cheap-model`,
    );
    expect(compared.stdout).toContain(
      `baseline: ${customer.persona.id} (version 1) along offline:offline-composer-1`,
    );
    expect(compared.stdout).toMatch(
      /avoid-politics › refusal \(politics\)\s+0%\s+100%\s+-100\s+▼/u,
    );
    expect(compared.stdout).toMatch(/greeting › length 1–5 sentences\s+100%\s+100%\s+0\s*\n/u);
    // Thirteen engine calls over eight case runs: 500 µ and 100 µ a call.
    expect(compared.stdout).toMatch(/cost per case run\s+0\.000813\s+0\.000163\s+▼/u);
    expect(compared.stdout).toMatch(/candidate FAIL: pass rate [\d.]+% \(threshold 100%\)/u);
    expect(compared.stdout).toContain(
      "baseline (compared, not judged): pass rate 100%, at or above the threshold 100%",
    );
    expect(compared.stderr).toMatch(
      /candidate:cheap-model: pass rate 0\.\d+ is below the threshold 1/u,
    );
    expect(compared.stderr).toMatch(
      /eval candidate candidate:cheap-model and baseline offline:offline-composer-1: 16 case runs in [\d.]+ s, interleaved case by case/u,
    );

    // The persona's own route as the candidate, the failing one as the
    // baseline: the baseline's failure is shown, never judged.
    const reversed = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--compare-route",
      "candidate:cheap-model",
    );
    expect(reversed.code, reversed.stderr).toBe(0);
    expect(reversed.stdout).toMatch(
      /avoid-politics › refusal \(politics\)\s+100%\s+0%\s+\+100\s+▲/u,
    );
    expect(reversed.stdout).toMatch(/cost per case run\s+0\.000163\s+0\.000813\s+▲/u);
    expect(reversed.stdout).toContain("candidate PASS: pass rate 100% (threshold 100%)");
    expect(reversed.stdout).toMatch(
      /baseline \(compared, not judged\): pass rate [\d.]+%, below the threshold 100%/u,
    );

    const lenient = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--route",
      "candidate:cheap-model",
      "--threshold",
      "0.2",
    );
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stdout).toMatch(/PASS: pass rate [\d.]+% \(threshold 20%\)/u);

    const runs = JSON.parse(
      (await admin("persona", "eval-runs", customer.persona.id, "--json")).stdout,
    );
    expect(runs[0]).toMatchObject({
      route: ["candidate:cheap-model"],
      threshold: 0.2,
      passed: true,
    });
    expect(runs.filter((run: { passed: boolean }) => !run.passed).length).toBeGreaterThanOrEqual(3);
  });

  it("judges the candidate, never the baseline: a better draft against a worse live version exits 0, the reverse 2, marked relative to the baseline", async () => {
    candidate.behaviour = { kind: "reply", text: "Assistant: As an AI, I think it's fine." };
    // Live on the failing model; a draft back on the offline engine.
    const other = await createCustomer(services, {
      balanceMicros: 0,
      persona: { route: [{ upstream: "candidate", model: "cheap-model" }] },
    });
    const id = other.persona.id;
    await services.personas.setRoute(id, [{ upstream: "offline", model: "offline-composer-1" }], {
      draft: true,
      note: "back to the offline engine",
    });
    const better = await admin(
      "persona",
      "eval",
      id,
      "--version",
      "draft",
      "--compare-version",
      "live",
      "--threshold",
      "0.9",
    );
    expect(better.code, better.stderr).toBe(0);
    expect(better.stdout).toContain(
      `candidate: ${id} (version 2) along offline:offline-composer-1`,
    );
    expect(better.stdout).toContain(`baseline: ${id} (version 1) along candidate:cheap-model`);
    // ▲ where the candidate is better; the baseline's first problem beside it.
    expect(better.stdout).toMatch(
      /avoid-politics › refusal \(politics\)\s+100%\s+0%\s+\+100\s+▲\s+no refusal of politics found/u,
    );
    /** The scorecard above its legend. */
    const rows = (stdout: string) => stdout.slice(0, stdout.indexOf("\n▲ the candidate"));
    expect(rows(better.stdout)).toContain("▲");
    expect(rows(better.stdout)).not.toContain("▼");
    expect(better.stdout).toContain(
      "▲ the candidate is better than the baseline, ▼ the candidate is worse",
    );
    expect(better.stdout).toContain("candidate PASS: pass rate 100% (threshold 90%)");
    expect(better.stdout).toMatch(
      /baseline \(compared, not judged\): pass rate [\d.]+%, below the threshold 90%/u,
    );
    expect(better.stdout).not.toMatch(/^[AB]:/mu);

    const worse = await admin(
      "persona",
      "eval",
      id,
      "--version",
      "live",
      "--compare-version",
      "draft",
      "--threshold",
      "0.9",
    );
    expect(worse.code).toBe(2);
    expect(worse.stdout).toMatch(
      /avoid-politics › refusal \(politics\)\s+0%\s+100%\s+-100\s+▼\s+no refusal of politics found/u,
    );
    expect(rows(worse.stdout)).not.toContain("▲");
    expect(worse.stdout).toMatch(/candidate FAIL: pass rate [\d.]+% \(threshold 90%\)/u);
    expect(worse.stderr).toMatch(
      /\(version 1\) along candidate:cheap-model: pass rate 0\.\d+ is below the threshold 0\.9/u,
    );
    expect(worse.stderr).not.toContain("(version 2)");
  });

  it("runs both sides interleaved case by case, alternating which goes first, and each progress line names its side", async () => {
    const result = await admin(
      "persona",
      "eval",
      customer.persona.id,
      "--compare-route",
      "candidate:cheap-model",
      "--threshold",
      "0",
      "--concurrency",
      "1",
      "--repeat",
      "2",
      "--json",
    );
    expect(result.code, result.stderr).toBe(0);
    const { runs } = JSON.parse(result.stdout);
    const order: Array<{ caseId: string; repeat: number }> = runs[0].cases.map(
      (run: { caseId: string; repeat: number }) => ({ caseId: run.caseId, repeat: run.repeat }),
    );
    expect(order).toHaveLength(16);
    expect(result.progress).toHaveLength(32);
    const seen = result.progress.map((line, index) => {
      const match =
        /^eval (\d+)\/32 case runs: (candidate|baseline) ([\w-]+) \(repeat ([12])\)$/u.exec(line);
      expect(match, line).not.toBeNull();
      expect(Number(match?.[1])).toBe(index + 1);
      return { side: match?.[2], caseId: match?.[3], repeat: Number(match?.[4]) };
    });
    // Case by case: both sides of a case run back to back, the candidate
    // first on every other case.
    for (const [pair, expected] of order.entries()) {
      const [first, second] =
        pair % 2 === 0 ? ["candidate", "baseline"] : ["baseline", "candidate"];
      expect(seen.slice(pair * 2, pair * 2 + 2)).toEqual([
        { side: first, ...expected },
        { side: second, ...expected },
      ]);
    }
    expect(runs.map((run: { side: string }) => run.side)).toEqual(["candidate", "baseline"]);
  });

  it("--max-regression fails a candidate above the threshold when a check fell that far below the baseline; refused without a baseline", async () => {
    candidate.behaviour = { kind: "reply", text: "Assistant: As an AI, I think it's fine." };
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-eval-regression-"));
    const suite = path.join(directory, "regression.eval.yaml");
    fs.writeFileSync(
      suite,
      [
        "name: regression",
        "cases:",
        "  - id: hello",
        "    generate: { messages: [{ role: user, content: Hello! }] }",
        "    checks:",
        "      - { type: length, unit: words, min: 1, max: 200 }",
        "      - { type: no-match, text: banana }",
        "      - { type: no-match, text: pineapple }",
        "      - { type: no-artefacts }",
      ].join("\n"),
    );
    const gate = (...args: string[]) =>
      admin(
        "persona",
        "eval",
        customer.persona.id,
        "--suite",
        suite,
        "--route",
        "candidate:cheap-model",
        "--threshold",
        "0.7",
        ...args,
      );
    try {
      // 75% reaches the threshold: without --max-regression the gate passes.
      const plain = await gate("--compare-route", "offline:offline-composer-1");
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toMatch(/hello › no-artefacts\s+0%\s+100%\s+-100\s+▼\s/u);
      expect(plain.stdout).not.toContain("regressions");

      const bitten = await gate(
        "--compare-route",
        "offline:offline-composer-1",
        "--max-regression",
        "20",
      );
      expect(bitten.code).toBe(2);
      expect(bitten.stdout).toMatch(/hello › no-artefacts\s+0%\s+100%\s+-100\s+▼ regressed/u);
      expect(bitten.stdout).toMatch(/hello › no-match "banana"\s+100%\s+100%\s+0\s*\n/u);
      expect(bitten.stdout).toContain("candidate PASS: pass rate 75% (threshold 70%)");
      expect(bitten.stdout).toContain(
        "candidate regressions (20 points or more below the baseline): hello › no-artefacts -100",
      );
      expect(bitten.stderr).toContain(
        "along candidate:cheap-model: candidate regressions (20 points or more below the baseline): hello › no-artefacts -100",
      );
      expect(bitten.stderr).not.toMatch(/below the threshold/u);
      const json = JSON.parse(
        (
          await gate(
            "--compare-route",
            "offline:offline-composer-1",
            "--max-regression",
            "100",
            "--json",
          )
        ).stdout,
      );
      expect(json.maxRegression).toBe(100);
      expect(json.comparison.regressions).toEqual([
        expect.objectContaining({ key: "hello#3", candidate: 0, baseline: 100, delta: -100 }),
      ]);

      // The other way round the candidate is better: nothing regressed, even at 0.
      const improved = await admin(
        "persona",
        "eval",
        customer.persona.id,
        "--suite",
        suite,
        "--compare-route",
        "candidate:cheap-model",
        "--max-regression",
        "0",
      );
      expect(improved.code, improved.stderr).toBe(0);
      expect(improved.stdout).toContain(
        "candidate regressions (any drop below the baseline): none",
      );

      const alone = await gate("--max-regression", "5");
      expect(alone.code).toBe(1);
      expect(alone.stderr).toContain(
        "--max-regression measures the candidate against a baseline: give --compare-version or --compare-route too",
      );
      for (const bad of ["101", "-1", "five"]) {
        const refused = await gate("--compare-version", "live", "--max-regression", bad);
        expect(refused.code, bad).toBe(1);
        expect(refused.stderr).toMatch(/--max-regression is percentage points from 0 to 100/u);
      }
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it("talks a conversation case through a simulated user upstream, judges every turn, and gates a candidate whose conversation's score regressed; nothing metered", async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-eval-conversation-"));
    const suite = path.join(directory, "chat.eval.yaml");
    fs.writeFileSync(
      suite,
      [
        "name: chat",
        "cases:",
        "  - id: chat",
        "    conversation:",
        "      turns: 4",
        "      goal: Find out when to plant tomatoes.",
        "    checks: [{ type: length, unit: words, min: 1, max: 200 }]",
      ].join("\n"),
    );
    candidate.behaviour = { kind: "reply", text: "Assistant: As an AI, I think it's fine." };
    simulatedUser.behaviour = { kind: "reply", text: "When do tomatoes go out?" };
    // Out of character scores 2, in character 5, on every dimension.
    judge.behaviour = {
      kind: "respond",
      answer: (body) => {
        const prompt = body.messages.at(-1)?.content ?? "";
        const reply = /<reply>\n([\s\S]*?)\n<\/reply>/u.exec(prompt)?.[1] ?? "";
        const score = reply.includes("As an AI") ? 2 : 5;
        return {
          text: JSON.stringify({
            scores: Object.fromEntries(
              [
                "persona_consistency",
                "linguistic_habits",
                "boundary_adherence",
                "expected_action",
                "action_justification",
              ].map((name) => [name, score]),
            ),
          }),
        };
      },
    };
    const before = await meteredState();
    const asked = simulatedUser.requests.length;
    const judged = judge.requests.length;
    try {
      const gated = await admin(
        "persona",
        "eval",
        customer.persona.id,
        "--suite",
        suite,
        "--route",
        "candidate:cheap-model",
        "--compare-route",
        "offline:offline-composer-1",
        "--simulated-user",
        "user:user-model",
        "--judge",
        "judge:judge-model",
        "--threshold",
        "0",
        "--max-regression",
        "10",
      );
      expect(gated.code).toBe(2);
      expect(gated.stdout).toContain("simulated user user:user-model, prompt simulated-user-1");
      expect(gated.stdout).toContain(
        "conversation chat: 4 turns; candidate with simulated user user:user-model, baseline with simulated user user:user-model",
      );
      expect(gated.stdout).toMatch(/\n1\s+1\/1\s+1\/1\s+2\.00\s+5\.00/u);
      expect(gated.stdout).toMatch(/in-character\s+2\.00\s+5\.00\s+-75\s+▼ regressed/u);
      expect(gated.stdout).toMatch(/drift\s+0\.00\s+0\.00/u);
      expect(gated.stderr).toContain("chat › in-character -75");
      // Four turns a side: the simulated user and the judge once a turn, with their keys.
      expect(simulatedUser.requests.length - asked).toBe(8);
      expect(simulatedUser.requests.at(-1)?.model).toBe("user-model");
      expect(simulatedUser.authorizations.at(-1)).toBe("Bearer user-key-for-tests");
      expect(judge.requests.length - judged).toBe(8);

      const alone = await admin(
        "persona",
        "eval",
        customer.persona.id,
        "--suite",
        suite,
        "--simulated-user",
        "user:user-model",
        "--judge",
        "judge:judge-model",
        "--json",
      );
      expect(alone.code, alone.stderr).toBe(0);
      const [run] = JSON.parse(alone.stdout).runs;
      expect(run.simulatedUser).toEqual({
        route: "user:user-model",
        promptVersion: "simulated-user-1",
      });
      expect(run.cases[0].conversation.turns).toHaveLength(4);
      expect(run.cases[0].conversation.turns[0]).toMatchObject({
        turn: 1,
        user: "When do tomatoes go out?",
        answeredBy: "offline:offline-composer-1",
        inCharacter: 5,
        simulatedUserCostMicros: 50,
      });
      expect(run.scorecard.conversations[0]).toMatchObject({ inCharacter: 5, drift: 0 });
      expect(run.scorecard.costMicros).toMatchObject({
        simulatedUser: 200,
        judge: 4 * JUDGE_PRICE_MICROS,
      });
      expect(await meteredState()).toEqual(before);

      const unknown = await admin(
        "persona",
        "eval",
        customer.persona.id,
        "--suite",
        suite,
        "--simulated-user",
        "nowhere:model",
      );
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/no upstream named "nowhere"/u);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it("refuses a route or judge naming an upstream this server does not configure", async () => {
    const route = await admin("persona", "eval", customer.persona.id, "--route", "nowhere:model");
    expect(route.code).toBe(1);
    expect(route.stderr).toMatch(/no upstream named "nowhere" is configured/u);
    const judged = await admin("persona", "eval", customer.persona.id, "--judge", "nowhere:model");
    expect(judged.code).toBe(1);
    expect(judged.stderr).toMatch(/no upstream named "nowhere"/u);
  });
  it("exits 2 from the built persona-admin when a run is below the threshold, 0 when it reaches it; --version is the command's", () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-eval-suite-"));
    const suite = path.join(directory, "strict.eval.yaml");
    fs.writeFileSync(
      suite,
      [
        "name: strict",
        "cases:",
        "  - id: hello",
        "    generate: { messages: [{ role: user, content: Hello! }] }",
        "    checks: [{ type: match, text: a word Juniper never says }, { type: no-artefacts }]",
      ].join("\n"),
    );
    const run = (...args: string[]) =>
      spawnSync(
        process.execPath,
        [ADMIN_SCRIPT, "persona", "eval", customer.persona.id, "--suite", suite, ...args],
        {
          env: {
            ...process.env,
            PERSONA_DATABASE_URL: database.url,
            PERSONA_UPSTREAMS_FILE: upstreams.file,
            TEST_JUDGE_KEY: "judge-key-for-tests",
            TEST_CANDIDATE_KEY: "candidate-key-for-tests",
            TEST_USER_KEY: "user-key-for-tests",
          },
          encoding: "utf8",
        },
      );
    try {
      const below = run();
      expect(below.status, below.stderr).toBe(2);
      expect(below.stdout).toContain("FAIL: pass rate 50% (threshold 100%)");
      expect(below.stderr).toMatch(/persona-admin: .* pass rate 0\.500 is below the threshold 1/u);
      const reached = run("--threshold", "0.5");
      expect(reached.status, reached.stderr).toBe(0);
      expect(reached.stdout).toContain("PASS: pass rate 50% (threshold 50%)");
      // The program's own --version (it prints the release) does not swallow the command's.
      const versioned = run("--version", "9");
      expect(versioned.status).toBe(1);
      expect(versioned.stderr).toContain(`persona ${customer.persona.id} has no version 9`);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
  it("refuses a 50 MB suite with a clear error and exit 1, and decides a catastrophically backtracking pattern at once, from the built persona-admin", async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-eval-bounds-"));
    // Asynchronous: the candidate upstream answering the run is in this process.
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [ADMIN_SCRIPT, "persona", "eval", customer.persona.id, ...args],
          {
            cwd: directory,
            env: isolatedEnvironment({
              PERSONA_DATABASE_URL: database.url,
              PERSONA_UPSTREAMS_FILE: upstreams.file,
              TEST_JUDGE_KEY: "judge-key-for-tests",
              TEST_CANDIDATE_KEY: "candidate-key-for-tests",
              TEST_USER_KEY: "user-key-for-tests",
            }),
            encoding: "utf8",
            // Guards the test against the hang this checks for.
            timeout: 50_000,
          },
          (error, stdout, stderr) => {
            const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
            resolve({ code, stdout, stderr });
          },
        );
      });
    try {
      const large = path.join(directory, "large.eval.yaml");
      const hello = "  - { id: c, generate: { messages: [{ role: user, content: Hello! }] } }\n";
      const descriptor = fs.openSync(large, "w");
      fs.writeSync(descriptor, "name: large\ncases:\n");
      const block = hello.repeat(Math.ceil((1024 * 1024) / hello.length));
      for (let written = 0; written < 50 * 1024 * 1024; written += block.length) {
        fs.writeSync(descriptor, block);
      }
      fs.closeSync(descriptor);
      const size = fs.statSync(large).size;
      const refused = await run("--suite", large);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr.trim()).toBe(
        `persona-admin: ${large}: ${size.toLocaleString("en")} bytes, larger than a suite may be (1 MiB, 1,048,576 bytes): split it into several suites`,
      );

      const poisoned = path.join(directory, "poisoned.eval.yaml");
      fs.writeFileSync(
        poisoned,
        [
          "name: poisoned",
          "cases:",
          "  - id: poison",
          "    generate: { messages: [{ role: user, content: Say a long aaah! }] }",
          "    checks: [{ type: match, pattern: '(a+)+$' }, { type: no-match, pattern: '(a+)+$' }]",
        ].join("\n"),
      );
      // Forty "a"s and a "!": JavaScript's own engine never finishes `(a+)+$` on it.
      candidate.behaviour = { kind: "reply", text: `${"a".repeat(40)}!` };
      const decided = await run("--suite", poisoned, "--route", "candidate:cheap-model", "--json");
      expect(decided.code, decided.stderr).toBe(2);
      const [result] = JSON.parse(decided.stdout).runs;
      expect(result.cases[0].reply).toBe(`${"a".repeat(40)}!`);
      expect(
        result.cases[0].checks.map((check: { outcome: string; detail: string }) => [
          check.outcome,
          check.detail,
        ]),
      ).toEqual([
        ["fail", "does not contain /(a+)+$/"],
        ["pass", ""],
      ]);
      expect(decided.stderr).toMatch(/pass rate 0\.500 is below the threshold 1/u);

      const lookahead = path.join(directory, "lookahead.eval.yaml");
      fs.writeFileSync(
        lookahead,
        "name: l\ncases: [{ id: sure, personify: { source: x }, checks: [{ type: match, pattern: 'sure(?! not)' }] }]\n",
      );
      const unsupported = await run("--suite", lookahead);
      expect(unsupported.code).toBe(1);
      expect(unsupported.stderr).toContain(
        `${lookahead}: case sure: cases.0.checks.0.pattern: a lookahead ((?! not)) is not supported: suite patterns run on a linear-time engine (RE2)`,
      );
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
