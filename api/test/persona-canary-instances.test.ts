import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import type { Services } from "../src/services.js";
import { runAdmin } from "./support/admin-in-process.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import {
  createTestDatabase,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";
import { closeStore, createCustomer, openStore } from "./support/test-store.js";
import { writeUpstreamsFile } from "./support/upstreams-file.js";

// Two API processes on two loopback ports sharing one PostgreSQL database,
// each running the canaries' automatic stop; the operator CLI runs here.
const skipReason = await postgresUnavailable();

describe.skipIf(skipReason !== undefined)(
  suiteTitle("persona canary on two instances", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    let store: Services;
    let directory: string;
    let broken: FakeUpstream;
    let upstreams: ReturnType<typeof writeUpstreamsFile>;
    const instances: SpawnedService[] = [];
    beforeAll(async () => {
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
      database = await createTestDatabase("postgres");
      store = await openStore(database.url, { PERSONA_UPSTREAMS_FILE: upstreams.file });
      directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-canary-"));
      for (const name of ["a", "b"]) {
        instances.push(
          await spawnService(directory, {
            PERSONA_DATABASE_URL: database.url,
            PERSONA_SEED_DEMO: "false",
            PERSONA_INSTANCE_ID: `instance-${name}`,
            PERSONA_ENV_FILE: path.join(directory, `${name}.env`),
            PERSONA_UPSTREAMS_FILE: upstreams.file,
            PERSONA_CANARY_CHECK_MS: "200",
          }),
        );
      }
    });
    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await closeStore(store);
      await database?.drop();
      await broken?.close();
      upstreams?.remove();
      if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
    });

    /** A funded account with its persona (live version 1, offline engine) and `count` keys. */
    async function customerWithKeys(count: number) {
      const first = await createCustomer(store, {
        balanceMicros: 10_000_000,
        limits: { minute: 1000, hour: 1000, day: 1000 },
      });
      const keys = [first.key];
      for (let index = 1; index < count; index += 1) {
        const { record, key } = await store.keys.create(first.accountId, `key ${index}`);
        await store.billing.limits.setForKey(record.id, { minute: 1000, hour: 1000, day: 1000 });
        keys.push(key);
      }
      return { accountId: first.accountId, personaId: first.persona.id, keys };
    }

    /** `Persona-Version` of a /generate answer from instance `index` (its status when not 200). */
    async function versionOn(index: number, key: string, personaId: string) {
      const response = await fetch(`${instances[index]?.url}/api/v1/generate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ personaId, messages: [{ role: "user", content: "Hi!" }] }),
      });
      await response.arrayBuffer();
      return response.status === 200
        ? response.headers.get("persona-version")
        : `status ${response.status}`;
    }

    it("a 20 % canary serves about a fifth of 30 keys the same version on both instances; --stop reaches the second instance within 1 s", async () => {
      const { personaId, keys } = await customerWithKeys(30);
      await store.personas.revise(personaId, { name: "Juniper Two" }, { draft: true });
      const started = await runAdmin(store, "persona", "canary", personaId, "2", "--percent", "20");
      expect(started.code, started.stderr).toBe(0);
      // Both instances learn of the start through the change feed.
      const deadline = Date.now() + 1_000;
      const versions = new Map<string, Set<string | null>>();
      for (const key of keys) {
        versions.set(key, new Set([await versionOn(0, key, personaId)]));
      }
      while ([...versions.values()].every((seen) => seen.has("1")) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        for (const key of keys) versions.set(key, new Set([await versionOn(0, key, personaId)]));
      }
      for (const index of [1, 0, 1]) {
        for (const key of keys) versions.get(key)?.add(await versionOn(index, key, personaId));
      }
      for (const seen of versions.values()) expect([...seen]).toHaveLength(1);
      const onCanary = [...versions.values()].filter((seen) => seen.has("2")).length;
      expect(onCanary).toBeGreaterThanOrEqual(2);
      expect(onCanary).toBeLessThanOrEqual(11);

      const stopped = await runAdmin(store, "persona", "canary", personaId, "--stop");
      expect(stopped.code, stopped.stderr).toBe(0);
      const stoppedAt = Date.now();
      const canaryKeys = keys.filter((key) => versions.get(key)?.has("2"));
      for (const key of canaryKeys) {
        while ((await versionOn(1, key, personaId)) !== "1") {
          expect(Date.now() - stoppedAt).toBeLessThan(1_000);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      expect(Date.now() - stoppedAt).toBeLessThan(1_000);

      // A new canary of the same draft, then its promotion, which finishes it.
      expect(
        (await runAdmin(store, "persona", "canary", personaId, "2", "--percent", "50")).code,
      ).toBe(0);
      expect((await runAdmin(store, "persona", "promote", personaId, "2")).code).toBe(0);
      const status = JSON.parse(
        (await runAdmin(store, "persona", "status", personaId, "--json")).stdout,
      );
      expect(status.liveVersion).toBe(2);
      expect(status.canary).toBeNull();
      expect(status.events.map((event: { action: string }) => event.action)).toEqual([
        "start",
        "stop",
        "start",
        "finish",
      ]);
    });

    it("a failing canary stops by itself once though both instances check, and every later answer comes from the live version; status equals the usage rows", async () => {
      const { accountId, personaId, keys } = await customerWithKeys(20);
      await store.personas.revise(
        personaId,
        { route: [{ upstream: "broken", model: "broken-model" }] },
        { draft: true },
      );
      const started = await runAdmin(
        store,
        "persona",
        "canary",
        personaId,
        "2",
        "--percent",
        "50",
        "--min-requests",
        "6",
      );
      expect(started.code, started.stderr).toBe(0);
      const startedAt = Date.now();
      while ((await store.personas.load(personaId))?.canary !== undefined) {
        expect(Date.now() - startedAt, "the canary never stopped").toBeLessThan(15_000);
        await Promise.all(keys.map((key, index) => versionOn(index % 2, key, personaId)));
      }
      const events = await store.canaries.events(personaId);
      expect(events.map((event) => event.action)).toEqual(["start", "auto_stop"]);
      expect(events[1]?.details).toMatchObject({
        canary: { version: 2, errorRate: 100 },
        live: { version: 1, errorRate: 0 },
      });

      // Every instance serves the live version to every key within a second, and keeps to it.
      const stoppedAt = Date.now();
      for (const index of [0, 1]) {
        for (const key of keys) {
          while ((await versionOn(index, key, personaId)) !== "1") {
            expect(Date.now() - stoppedAt).toBeLessThan(1_000);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      }
      for (const index of [0, 1]) {
        for (const key of keys) expect(await versionOn(index, key, personaId)).toBe("1");
      }

      // `persona status --json` says what the usage rows say.
      const status = JSON.parse(
        (await runAdmin(store, "persona", "status", personaId, "--json")).stdout,
      );
      const rows = (await store.usage.list(accountId)).filter(
        (row) => row.personaId === personaId && row.createdAt >= status.since,
      );
      const fromRows = (version: number) => {
        const mine = rows.filter((row) => row.personaVersion === version);
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
      expect(status.versions).toEqual([fromRows(1), fromRows(2)]);
      expect(status.versions[1].errors).toBe(status.versions[1].requests);
      // Each served request charged once, failures nothing: the ledger agrees with the balance.
      const balance = await store.billing.balances.balanceOf(accountId);
      expect(balance?.reservedMicros).toBe(0);
      expect(balance?.balanceMicros).toBe(10_000_000 - fromRows(1).costMicros);
      expect(await store.billing.balances.ledgerSum(accountId)).toBe(balance?.balanceMicros);
    });
  },
);
