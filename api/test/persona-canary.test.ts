import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../src/logging/logger.js";
import { CanaryWatch } from "../src/personas/canary-watch.js";
import { readExamplePersona } from "../src/seed/demo-seed.js";
import type { Services } from "../src/services.js";
import { runAdmin } from "./support/admin-in-process.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { startTestService, type TestService } from "./support/test-service.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

/** The automatic stop's period in this suite: short, so a test waits little. */
const CHECK_MS = 100;
/** What the offline engine charges a request (micro-units). */
const OFFLINE_PRICE = 100;

let service: TestService;
let broken: FakeUpstream;
let upstreams: ReturnType<typeof writeUpstreamsFile>;

beforeAll(async () => {
  // An upstream that answers every call 500: a canary routed to it fails.
  broken = await startFakeUpstream();
  broken.behaviour = { kind: "status", status: 500 };
  upstreams = writeUpstreamsFile({
    broken: {
      kind: "openai-compatible",
      baseUrl: broken.baseUrl,
      timeoutMs: 2_000,
      maxRetries: 0,
      cooldownAfterFailures: 1000,
      price: { requestMicros: 10 },
    },
  });
  service = await startTestService({
    PERSONA_UPSTREAMS_FILE: upstreams.file,
    PERSONA_CANARY_CHECK_MS: String(CHECK_MS),
  });
});
afterAll(async () => {
  await service?.stop();
  await broken?.close();
  upstreams?.remove();
});

/** A fresh funded account, its persona (live version 1 on the offline engine) and `keys` keys. */
async function customer(keys: number) {
  const { services } = service;
  const account = await services.accounts.create("Canary customer");
  await services.billing.balances.topUp(account.id, 10_000_000, "test funds");
  const persona = await services.personas.create(account.id, {
    ...readExamplePersona(),
  });
  const made = [];
  for (let index = 0; index < keys; index += 1) {
    const { record, key } = await services.keys.create(account.id, `key ${index}`);
    await services.billing.limits.setForKey(record.id, { minute: 1000, hour: 1000, day: 1000 });
    made.push({ id: record.id, key });
  }
  return { accountId: account.id, personaId: persona.id, keys: made };
}

/** POSTs /generate with a key; the status and the `Persona-Version` that answered. */
async function generate(key: string, personaId: string) {
  const response = await service.post(
    "/api/v1/generate",
    { personaId, messages: [{ role: "user", content: "Hello there!" }] },
    { headers: { "x-api-key": key } },
  );
  await response.arrayBuffer();
  return { status: response.status, version: response.headers.get("persona-version") };
}

/** Waits until `check` holds, failing after `withinMs`. */
async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    expect(Date.now() - started, "waited too long").toBeLessThan(withinMs);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

async function admin(services: Services, ...args: string[]) {
  return runAdmin(services, "persona", ...args);
}

describe("persona canary (SQLite)", () => {
  it("serves a 20 % canary to about a fifth of 30 keys, each key always one version, charged once each; status equals the usage rows; promote finishes it", async () => {
    const { services } = service;
    const { accountId, personaId, keys } = await customer(30);
    await services.personas.revise(personaId, { name: "Juniper Two" }, { draft: true });
    const started = await admin(services, "canary", personaId, "2", "--percent", "20");
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toContain("version 2 serves 20 % of traffic");

    const seen = new Map<string, Set<string | null>>();
    for (let round = 0; round < 3; round += 1) {
      for (const { id, key } of keys) {
        const answer = await generate(key, personaId);
        expect(answer.status).toBe(200);
        seen.set(id, (seen.get(id) ?? new Set()).add(answer.version));
      }
    }
    // Sticky: one version per key over every request.
    for (const versions of seen.values()) expect(versions.size).toBe(1);
    const onCanary = [...seen.values()].filter((versions) => versions.has("2")).length;
    expect(onCanary).toBeGreaterThanOrEqual(2);
    expect(onCanary).toBeLessThanOrEqual(11);

    // Usage rows name the version that answered each key; every request charged once.
    const rows = (await services.usage.list(accountId)).filter(
      (row) => row.personaId === personaId,
    );
    expect(rows).toHaveLength(90);
    for (const row of rows) {
      expect([...(seen.get(row.apiKeyId ?? "") ?? [])]).toEqual([String(row.personaVersion)]);
    }
    const balance = await services.billing.balances.balanceOf(accountId);
    expect(balance?.balanceMicros).toBe(10_000_000 - 90 * OFFLINE_PRICE);
    expect(await services.billing.balances.ledgerSum(accountId)).toBe(balance?.balanceMicros);

    // `persona status --json` says what the usage rows say.
    const status = await admin(services, "status", personaId, "--json");
    expect(status.code, status.stderr).toBe(0);
    const json = JSON.parse(status.stdout);
    expect(json.liveVersion).toBe(1);
    expect(json.canary).toMatchObject({
      version: 2,
      percent: 20,
      maxErrorRateIncrease: 5,
      minRequests: 50,
      minOnlineScore: null,
      minJudgeScore: null,
    });
    const since: string = json.since;
    const fromRows = (version: number) => {
      const mine = rows.filter((row) => row.personaVersion === version && row.createdAt >= since);
      const errors = mine.filter((row) => row.status >= 500).length;
      const cost = mine.reduce((sum, row) => sum + row.costMicros, 0);
      // Nearest-rank percentiles of the rows' durations (migration 0027).
      const durations = mine.flatMap((row) => (row.durationMs == null ? [] : [row.durationMs]));
      durations.sort((a, b) => a - b);
      const rank = (p: number) =>
        durations.length === 0
          ? null
          : (durations[Math.max(1, Math.ceil((p / 100) * durations.length)) - 1] ?? null);
      return {
        version,
        requests: mine.length,
        errors,
        errorRate: mine.length === 0 ? 0 : (errors / mine.length) * 100,
        costMicros: cost,
        costPerRequestMicros: mine.length === 0 ? 0 : cost / mine.length,
        latencyP50Ms: rank(50),
        latencyP95Ms: rank(95),
        onlineScore: null,
      };
    };
    expect(json.versions).toEqual([fromRows(1), fromRows(2)]);
    expect(json.versions[1].requests).toBe(onCanary * 3);
    expect(json.events.map((event: { action: string }) => event.action)).toEqual(["start"]);
    const text = await admin(services, "status", personaId);
    expect(text.stdout).toContain("canary: version 2 on 20 % of traffic");
    expect(text.stdout).toContain("p50 ms");

    // Promoting the canary's version finishes it, in the same transaction.
    const promoted = await admin(services, "promote", personaId, "2");
    expect(promoted.code, promoted.stderr).toBe(0);
    const after = JSON.parse((await admin(services, "status", personaId, "--json")).stdout);
    expect(after.liveVersion).toBe(2);
    expect(after.canary).toBeNull();
    expect(after.events.map((event: { action: string }) => event.action)).toEqual([
      "start",
      "finish",
    ]);
    expect(after.events[1].operator).toBe(after.events[0].operator);
    await eventually(async () => {
      for (const { key } of keys) {
        if ((await generate(key, personaId)).version !== "2") return false;
      }
      return true;
    }, 1_000);
  });

  it("--stop returns every key to the live version within 1 s, and is recorded", async () => {
    const { services } = service;
    const { personaId, keys } = await customer(10);
    await services.personas.revise(personaId, { name: "Juniper Two" }, { draft: true });
    expect((await admin(services, "canary", personaId, "2", "--percent", "50")).code).toBe(0);
    const versions = await Promise.all(keys.map(({ key }) => generate(key, personaId)));
    expect(versions.some((answer) => answer.version === "2")).toBe(true);

    const stopped = await admin(services, "canary", personaId, "--stop");
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain("canary of version 2 stopped");
    const took = await eventually(async () => {
      const answers = await Promise.all(keys.map(({ key }) => generate(key, personaId)));
      return answers.every((answer) => answer.status === 200 && answer.version === "1");
    }, 1_000);
    expect(took).toBeLessThan(1_000);
    const status = JSON.parse((await admin(services, "status", personaId, "--json")).stdout);
    expect(status.canary).toBeNull();
    expect(status.events.map((event: { action: string }) => event.action)).toEqual([
      "start",
      "stop",
    ]);
    // A stopped canary's version is still a draft: it can be promoted or canaried again.
    expect((await services.personas.version(personaId, 2))?.status).toBe("draft");
  });

  it("runs a canary of an earlier version, which a rollback to it finishes", async () => {
    const { services } = service;
    const { personaId, keys } = await customer(10);
    await services.personas.revise(personaId, { name: "Juniper Two" });
    expect((await admin(services, "canary", personaId, "1", "--percent", "50")).code).toBe(0);
    const answers = await Promise.all(keys.map(({ key }) => generate(key, personaId)));
    expect(new Set(answers.map((answer) => answer.version))).toEqual(new Set(["1", "2"]));

    const rolledBack = await admin(services, "rollback", personaId, "1");
    expect(rolledBack.code, rolledBack.stderr).toBe(0);
    const status = JSON.parse((await admin(services, "status", personaId, "--json")).stdout);
    expect(status.liveVersion).toBe(3);
    expect(status.canary).toBeNull();
    expect(status.events.map((event: { action: string }) => event.action)).toEqual([
      "start",
      "finish",
    ]);
    await eventually(async () => {
      const after = await Promise.all(keys.map(({ key }) => generate(key, personaId)));
      return after.every((answer) => answer.version === "3");
    }, 1_000);
  });

  it("refuses what cannot be a canary, with the CLI's error and nothing changed", async () => {
    const { services } = service;
    const { personaId } = await customer(0);
    await services.personas.revise(personaId, { name: "Juniper Two" }, { draft: true });
    const refusals: Array<[string[], RegExp]> = [
      [
        ["canary", personaId, "2", "--percent", "0"],
        /--percent must be a whole number from 1 to 50/u,
      ],
      [["canary", personaId, "2", "--percent", "51"], /from 1 to 50/u],
      [["canary", personaId, "2", "--percent", "ten"], /from 1 to 50/u],
      [["canary", personaId, "2"], /give a version and --percent, or --stop/u],
      [["canary", personaId, "1", "--percent", "10"], /is the live version/u],
      [["canary", personaId, "7", "--percent", "10"], /has no version 7/u],
      [["canary", personaId, "--stop"], /has no canary running/u],
      [
        ["canary", personaId, "2", "--percent", "10", "--max-error-rate-increase", "-1"],
        /percentage points/u,
      ],
      [["canary", "no-such-persona", "2", "--percent", "10"], /no persona with ID/u],
      [["status", "no-such-persona"], /no persona with ID/u],
    ];
    for (const [args, message] of refusals) {
      const run = await admin(services, ...args);
      expect(run.code, args.join(" ")).toBe(1);
      expect(run.stderr, args.join(" ")).toMatch(message);
    }
    expect((await services.personas.load(personaId))?.canary).toBeUndefined();
    expect((await admin(services, "canary", personaId, "2", "--percent", "10")).code).toBe(0);
    const again = await admin(services, "canary", personaId, "2", "--percent", "10");
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/a canary of version 2 is running: stop it first/u);
  });

  it("stops a failing canary by itself, records and logs the figures; every later answer comes from the live version", async () => {
    const { services } = service;
    const { personaId, keys } = await customer(20);
    await services.personas.revise(
      personaId,
      { route: [{ upstream: "broken", model: "broken-model" }] },
      { draft: true },
    );
    const started = await admin(
      services,
      "canary",
      personaId,
      "2",
      "--percent",
      "50",
      "--min-requests",
      "6",
      "--max-error-rate-increase",
      "5",
    );
    expect(started.code, started.stderr).toBe(0);
    // Requests until the watch stops the canary (its failures answer 502).
    const statuses: Array<{ status: number; version: string | null }> = [];
    await eventually(async () => {
      statuses.push(...(await Promise.all(keys.map(({ key }) => generate(key, personaId)))));
      return (await services.personas.load(personaId))?.canary === undefined;
    }, 10_000);
    const failed = statuses.filter((answer) => answer.version === "2");
    expect(failed.length).toBeGreaterThanOrEqual(6);
    expect(failed.every((answer) => answer.status === 502)).toBe(true);

    const status = JSON.parse((await admin(services, "status", personaId, "--json")).stdout);
    const stop = status.events.at(-1);
    expect(stop).toMatchObject({ action: "auto_stop", version: 2, percent: 50, operator: null });
    expect(stop.details.canary.version).toBe(2);
    expect(stop.details.canary.errorRate).toBe(100);
    expect(stop.details.live.errorRate).toBe(0);
    expect(stop.details.canary.requests).toBeGreaterThanOrEqual(6);
    // Failures are charged nothing: the canary's requests cost 0.
    expect(status.versions.find((line: { version: number }) => line.version === 2).costMicros).toBe(
      0,
    );

    // Within a second every key is served by the live version again.
    await eventually(async () => {
      const answers = await Promise.all(keys.map(({ key }) => generate(key, personaId)));
      return answers.every((answer) => answer.status === 200 && answer.version === "1");
    }, 1_000);
    for (let round = 0; round < 2; round += 1) {
      const answers = await Promise.all(keys.map(({ key }) => generate(key, personaId)));
      expect(answers.every((answer) => answer.status === 200 && answer.version === "1")).toBe(true);
    }
  });

  it("two watches judging one failing canary at once stop it, record it and log it once", async () => {
    const { services } = service;
    // The service's own watch is stopped, so these two are the only ones judging.
    await services.canaryWatch.stop();
    try {
      const { personaId, keys } = await customer(20);
      await services.personas.revise(
        personaId,
        { route: [{ upstream: "broken", model: "broken-model" }] },
        { draft: true },
      );
      await services.canaries.start(personaId, 2, { percent: 50, minRequests: 3 });
      await eventually(async () => {
        await Promise.all(keys.map(({ key }) => generate(key, personaId)));
        const figures = JSON.parse((await admin(services, "status", personaId, "--json")).stdout);
        return figures.versions[1].requests >= 3;
      }, 5_000);
      const logged: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          logged.push(String(chunk));
          done();
        },
      });
      const watches = [0, 1].map(
        () =>
          new CanaryWatch(services.canaries, services.database, createLogger("info", sink), 60_000),
      );
      const stopped = await Promise.all(watches.map((watch) => watch.check()));
      // Stopped once between the two (other suites' canaries are not this test's concern).
      expect(stopped.flat().filter((id) => id === personaId)).toEqual([personaId]);
      const events = await services.canaries.events(personaId);
      expect(events.map((event) => event.action)).toEqual(["start", "auto_stop"]);
      const warnings = logged.map((line) => JSON.parse(line)).filter((line) => line.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ personaId, canaryVersion: 2, liveVersion: 1 });
      expect(warnings[0].canary.errorRate).toBe(100);
    } finally {
      services.canaryWatch.start();
    }
  });
});
