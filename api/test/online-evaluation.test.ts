import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger } from "../src/logging/logger.js";
import { createMetrics } from "../src/metrics/metrics.js";
import { OnlineSampler } from "../src/online-evaluation/online-sampler.js";
import { CanaryWatch } from "../src/personas/canary-watch.js";
import type { Persona } from "../src/personas/persona.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import type { Services } from "../src/services.js";
import { runAdmin } from "./support/admin-in-process.js";
import { startFakeUpstream } from "./support/fake-upstream.js";
import { describeEachDialect } from "./support/test-databases.js";
import { startTestService, type TestService } from "./support/test-service.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

// Online evaluation (`persona-admin persona sample`) through the real
// request path, on both dialects: a judge and a model that breaks
// character behind fake upstreams speaking the chat completions protocol.

const JUDGE_PRICE_MICROS = 1_000;
const judge = await startFakeUpstream();
const broken = await startFakeUpstream();
judge.behaviour = {
  kind: "reply",
  text: JSON.stringify({
    scores: {
      persona_consistency: 4,
      linguistic_habits: 4,
      boundary_adherence: 4,
      expected_action: 4,
      action_justification: 4,
    },
    reason: "fine",
  }),
};
// Answers out of character: the `no-artefacts` check fails every one.
broken.behaviour = { kind: "reply", text: "As an AI language model, I like gardens." };
const upstreams = writeUpstreamsFile({
  offline: { kind: "offline" },
  judge: {
    kind: "openai-compatible",
    baseUrl: judge.baseUrl,
    maxRetries: 0,
    price: { requestMicros: JUDGE_PRICE_MICROS },
  },
  broken: {
    kind: "openai-compatible",
    baseUrl: broken.baseUrl,
    maxRetries: 0,
    price: { requestMicros: 10 },
  },
});
afterAll(async () => {
  await judge.close();
  await broken.close();
  upstreams.remove();
});

/** What the offline engine charges a request (micro-units). */
const OFFLINE_PRICE = 100;

await describeEachDialect("online evaluation", (database) => {
  let service: TestService;
  let services: Services;

  beforeAll(async () => {
    service = await startTestService({
      PERSONA_DATABASE_URL: database.url,
      PERSONA_UPSTREAMS_FILE: upstreams.file,
      // The watch is run by hand here.
      PERSONA_CANARY_CHECK_MS: "3600000",
    });
    services = service.services;
  });
  afterAll(async () => {
    await service?.stop();
  });

  const admin = (...args: string[]) => runAdmin(services, "persona", ...args);

  async function customer(keys = 1) {
    const account = await services.accounts.create("Sampled customer");
    await services.billing.balances.topUp(account.id, 10_000_000, "test funds");
    const persona = await services.personas.create(account.id, { ...readExamplePersona() });
    const made = [];
    for (let index = 0; index < keys; index += 1) {
      const { record, key } = await services.keys.create(account.id, `key ${index}`);
      await services.billing.limits.setForKey(record.id, { minute: 1000, hour: 1000, day: 1000 });
      made.push({ id: record.id, key });
    }
    return { accountId: account.id, personaId: persona.id, keys: made };
  }

  async function generate(key: string, personaId: string, content = "Hello there!") {
    const response = await service.post(
      "/api/v1/generate",
      { personaId, messages: [{ role: "user", content }] },
      { headers: { "x-api-key": key } },
    );
    const body = (await response.json()) as {
      rateLimits?: Array<{ window: string; limit: number; remaining: number }>;
    };
    return {
      status: response.status,
      version: response.headers.get("persona-version"),
      // Each key's windows reset at their own second; what was counted is the limit and remaining.
      rateLimits: body.rateLimits?.map(({ window, limit, remaining }) => ({
        window,
        limit,
        remaining,
      })),
    };
  }

  /** Everything metering keeps of a customer, without its IDs and times. */
  async function metered(accountId: string) {
    const rows = await services.usage.list(accountId);
    return {
      balance: (await services.billing.balances.balanceOf(accountId))?.balanceMicros,
      ledgerSum: await services.billing.balances.ledgerSum(accountId),
      usage: rows
        .map((row) => [
          row.endpoint,
          row.status,
          row.costMicros,
          row.inputTokens,
          row.paymentMethod,
        ])
        .sort(),
    };
  }

  it("sampling 100 % with a judge leaves a customer's balance, limits and usage as without it; the judge's cost is the operator's", async () => {
    const sampled = await customer();
    const control = await customer();
    const set = await admin(
      "sample",
      sampled.personaId,
      "--percent",
      "100",
      "--judge",
      "judge:judge-model",
    );
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("100 % of live answers scored");
    // Every instance applies it within about a second (the change feed).
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const judgedBefore = judge.requests.length;
    const answers = { sampled: [] as unknown[], control: [] as unknown[] };
    for (let index = 0; index < 6; index += 1) {
      const a = await generate(sampled.keys[0]?.key ?? "", sampled.personaId);
      const b = await generate(control.keys[0]?.key ?? "", control.personaId);
      expect([a.status, b.status]).toEqual([200, 200]);
      answers.sampled.push(a.rateLimits);
      answers.control.push(b.rateLimits);
    }
    await services.sampler.settled();
    // Rate limits seen by the customer, balance, ledger and usage rows: as without sampling.
    expect(answers.sampled).toEqual(answers.control);
    const [mine, theirs] = [await metered(sampled.accountId), await metered(control.accountId)];
    expect(mine).toEqual(theirs);
    expect(mine.balance).toBe(10_000_000 - 6 * OFFLINE_PRICE);
    expect(mine.usage).toHaveLength(6);
    // Every answer was judged; the cost is stored with the scores, the operator's.
    expect(judge.requests.length - judgedBefore).toBe(6);
    const live = JSON.parse(
      (await admin("eval-runs", sampled.personaId, "--live", "--json")).stdout,
    );
    expect(live).toEqual([
      {
        version: 1,
        day: new Date().toISOString().slice(0, 10),
        samples: 6,
        checkPassRate: 100,
        judgeMean: 4,
        judged: 6,
        judgeErrors: 0,
        judgeCostMicros: 6 * JUDGE_PRICE_MICROS,
      },
    ]);
    // persona status shows the same day's scores.
    const status = JSON.parse((await admin("status", sampled.personaId, "--json")).stdout);
    expect(status.onlineScoresByDay).toEqual(live);
    expect((await admin("status", sampled.personaId)).stdout).toContain("online scores per day");
    // Stopping: no more answers are scored.
    expect((await admin("sample", sampled.personaId, "--percent", "0")).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await generate(sampled.keys[0]?.key ?? "", sampled.personaId);
    await services.sampler.settled();
    const after = JSON.parse(
      (await admin("eval-runs", sampled.personaId, "--live", "--json")).stdout,
    );
    expect(after[0].samples).toBe(6);
  });

  it("drops and counts answers when the queue is full, never blocking the offer", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const stored: unknown[] = [];
    const sampler = new OnlineSampler(
      {
        scores: { add: async (sums) => void stored.push(...sums) },
        logger: createLogger("silent"),
        metrics,
        judgeRouter: undefined,
        prices: services.billing.prices,
      },
      { capacity: 2, concurrency: 1, deadlineMs: 60_000, flushIntervalMs: 60_000 },
    );
    const persona = {
      ...((await services.personas.load((await customer(0)).personaId)) as Persona),
      sampling: {
        percent: 100,
        settings: {
          checks: [{ type: "no-artefacts" }],
          refusalMarkers: [],
          suite: null,
          judge: null,
          keepContentDays: null,
        },
        canaryStartedAt: "",
      },
    } satisfies Persona;
    const output = {
      texts: ["Hello from the garden."],
      usage: { inputTokens: 1, outputTokens: 1 },
      target: { upstream: "offline", model: "offline-composer-1" },
    };
    const task = {
      task: "reply",
      messages: [{ role: "user", content: "Hi" }],
      candidates: 1,
    } as const;
    // Offered in one turn of the event loop: the queue holds two, the other three are dropped.
    for (let index = 0; index < 5; index += 1) sampler.offer(persona, "generate", task, output);
    expect(sampler.waiting).toBe(2);
    expect(sampler.dropped).toBe(3);
    await sampler.settled();
    const counted = await metrics.onlineSamples.get();
    const byOutcome = Object.fromEntries(
      counted.values.map((value) => [value.labels.outcome, value.value]),
    );
    expect(byOutcome).toEqual({ dropped_full: 3, scored: 2 });
    expect(stored).toMatchObject([{ samples: 2, checks: 2, checksPassed: 2 }]);
  });

  it("scores per version during a canary; status --json equals the usage rows (latency p50/p95 included); the canary stops itself under its score floor", async () => {
    const { personaId, keys } = await customer(20);
    await services.personas.revise(
      personaId,
      { route: [{ upstream: "broken", model: "broken-model" }] },
      { draft: true },
    );
    expect((await admin("sample", personaId, "--percent", "100")).code).toBe(0);
    const started = await admin(
      "canary",
      personaId,
      "2",
      "--percent",
      "50",
      "--min-online-score",
      "90",
      "--min-samples",
      "3",
      // The error rate is not what this test stops it by.
      "--max-error-rate-increase",
      "100",
    );
    expect(started.code, started.stderr).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const answers = await Promise.all(keys.map(({ key }) => generate(key, personaId)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const onCanary = answers.filter((answer) => answer.version === "2").length;
    expect(onCanary).toBeGreaterThanOrEqual(3);
    await services.sampler.settled();

    const status = JSON.parse((await admin("status", personaId, "--json")).stdout);
    expect(status.sampling.percent).toBe(100);
    expect(status.canary).toMatchObject({ version: 2, minOnlineScore: 90, minSamples: 3 });
    const rows = (await services.usage.list()).filter(
      (row) => row.personaId === personaId && row.createdAt >= status.since,
    );
    const nearestRank = (values: number[], p: number) =>
      values.length === 0
        ? null
        : values.sort((a, b) => a - b)[Math.max(1, Math.ceil((p / 100) * values.length)) - 1];
    for (const line of status.versions) {
      const mine = rows.filter((row) => row.personaVersion === line.version);
      const durations = mine.flatMap((row) => (row.durationMs == null ? [] : [row.durationMs]));
      expect(durations).toHaveLength(mine.length);
      const errors = mine.filter((row) => row.status >= 500).length;
      const cost = mine.reduce((sum, row) => sum + row.costMicros, 0);
      expect(line).toMatchObject({
        requests: mine.length,
        errors,
        costMicros: cost,
        costPerRequestMicros: mine.length === 0 ? 0 : cost / mine.length,
        latencyP50Ms: nearestRank([...durations], 50),
        latencyP95Ms: nearestRank([...durations], 95),
      });
    }
    const byVersion = Object.fromEntries(
      status.versions.map((line: { version: number; onlineScore: unknown }) => [
        line.version,
        line.onlineScore,
      ]),
    );
    expect(byVersion[1]).toMatchObject({ samples: keys.length - onCanary, checkPassRate: 100 });
    expect(byVersion[2]).toMatchObject({ samples: onCanary, checkPassRate: 0 });
    const text = (await admin("status", personaId)).stdout;
    expect(text).toContain("p95 ms");
    expect(text).toContain("online evaluation: 100 % of answers scored");

    const stopped = await new CanaryWatch(
      services.canaries,
      services.database,
      createLogger("silent"),
      60_000,
      services.onlineScores,
    ).check();
    expect(stopped).toContain(personaId);
    const events = await services.canaries.events(personaId);
    expect(events.at(-1)).toMatchObject({
      action: "auto_stop",
      details: { reason: "online_score", floor: "checks", minOnlineScore: 90 },
    });
    const figures = events.at(-1)?.details?.canary as { samples: number } | undefined;
    expect(figures?.samples).toBe(onCanary);
    expect((await services.personas.load(personaId))?.canary).toBeUndefined();
  });

  it("keeps sampled content only with --keep-content, and the retention run removes it after its days", async () => {
    const plain = await customer();
    expect((await admin("sample", plain.personaId, "--percent", "100")).code).toBe(0);
    const kept = await customer();
    const set = await admin(
      "sample",
      kept.personaId,
      "--percent",
      "100",
      "--keep-content",
      "--content-days",
      "2",
    );
    expect(set.code, set.stderr).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await generate(plain.keys[0]?.key ?? "", plain.personaId, "Tell me about politics please");
    await generate(kept.keys[0]?.key ?? "", kept.personaId, "Tell me about politics please");
    await services.sampler.settled();
    expect(await services.onlineScores.samples(plain.personaId)).toEqual([]);
    const samples = await services.onlineScores.samples(kept.personaId);
    expect(samples).toHaveLength(1);
    expect(samples[0]?.message).toBe("Tell me about politics please");
    // The message met an avoid topic: a refusal was checked.
    expect(
      JSON.parse(samples[0]?.checks ?? "[]").map((check: { label: string }) => check.label),
    ).toContain("refusal (politics)");

    // A day later it stays; three days later the retention run removes it.
    await services.retention.run(new Date(Date.now() + 86_400_000));
    expect(await services.onlineScores.samples(kept.personaId)).toHaveLength(1);
    const report = await services.retention.run(new Date(Date.now() + 3 * 86_400_000));
    expect(report.onlineSamplesRemoved).toBe(1);
    expect(await services.onlineScores.samples(kept.personaId)).toEqual([]);
  });
});
