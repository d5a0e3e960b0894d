import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import { startTcpProxy, type TcpProxy } from "../../test-support/tcp-proxy.js";
import type { Services } from "../src/services.js";
import { type LoadResult, ledgerProblems, runLoad } from "./support/load.js";
import {
  createTestDatabase,
  POSTGRES_ADMIN_URL,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";

// PostgreSQL and Redis failing under a running service: backends
// terminated under load, a database and a Redis that stop answering without
// a reset (a TCP proxy of the test's own that stops forwarding). The service
// never dies, never hangs past its deadlines, says so in /readyz, recovers by
// itself, and charges nothing it did not serve.

const REDIS_URL = process.env.PERSONA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const postgresSkip = await postgresUnavailable();

/** Alternates the load over instances. */
async function loadOver(
  instances: readonly SpawnedService[],
  customer: StoreCustomer,
  durationMs: number,
  prefix: string,
): Promise<LoadResult[]> {
  const runs = instances.map((instance, index) =>
    runLoad({
      baseUrl: instance.url,
      apiKey: customer.key,
      personaId: customer.persona.id,
      concurrency: 5,
      durationMs,
      prefix: `${prefix}-${index}`,
    }),
  );
  return (await Promise.all(runs)).flat();
}

async function status(
  url: string,
  timeoutMs = 5_000,
): Promise<{ status: number; elapsedMs: number; body: string }> {
  const started = Date.now();
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, elapsedMs: Date.now() - started, body: await response.text() };
}

async function eventually(check: () => Promise<boolean>, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

function alive(instance: SpawnedService): boolean {
  return instance.child.exitCode === null && instance.child.signalCode === null;
}

describe.skipIf(postgresSkip !== undefined)(
  suiteTitle("PostgreSQL failing under load", "postgres", postgresSkip),
  () => {
    let database: TestDatabase;
    let store: Services;
    let directory: string;
    const instances: SpawnedService[] = [];
    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      store = await openStore(database.url);
      directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-pg-faults-"));
    });
    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await closeStore(store);
      await database?.drop();
      if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
    });

    it("lives on when every backend is terminated under load on two instances, and recovers", async () => {
      for (const name of ["a", "b"]) {
        instances.push(
          await spawnService(directory, {
            PERSONA_DATABASE_URL: database.url,
            PERSONA_SEED_DEMO: "false",
            PERSONA_INSTANCE_ID: `terminated-${name}`,
          }),
        );
      }
      const customer = await createCustomer(store, {
        balanceMicros: 100_000_000,
        limits: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 },
      });
      const load = loadOver(instances, customer, 4_000, "terminated");
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await admin.connect();
      const name = new URL(database.url).pathname.slice(1);
      const { rowCount } = await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [name],
      );
      await admin.end();
      expect(rowCount).toBeGreaterThan(0);
      const results = await load;

      for (const instance of instances) expect(alive(instance)).toBe(true);
      expect(results.every((result) => [200, 503].includes(result.status))).toBe(true);
      // Both instances serve again on their own.
      const after = await loadOver(instances, customer, 1_000, "after-terminate");
      expect(after.every((result) => result.status === 200)).toBe(true);
      for (const instance of instances) {
        expect((await status(`${instance.url}/readyz`)).status).toBe(200);
      }
      expect(
        await eventually(
          async () =>
            (await ledgerProblems(store, customer.accountId, [...results, ...after], 100_000_000))
              .length === 0,
          5_000,
        ),
      ).toBe(true);
    });

    it("answers 503 and says 'no schema' in /readyz when its database is recreated empty, and recovers at restart", async () => {
      const recreated = await createTestDatabase("postgres");
      try {
        const seeded = await openStore(recreated.url);
        const customer = await createCustomer(seeded, {
          balanceMicros: 1_000_000,
          limits: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 },
        });
        await closeStore(seeded);
        const instance = await spawnService(directory, {
          PERSONA_DATABASE_URL: recreated.url,
          PERSONA_SEED_DEMO: "false",
          PERSONA_INSTANCE_ID: "recreated",
        });
        instances.push(instance);
        expect(
          (await loadOver([instance], customer, 300, "before-recreate")).every(
            (r) => r.status === 200,
          ),
        ).toBe(true);
        // The operator drops and recreates the database under the running instance.
        const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
        await admin.connect();
        const name = new URL(recreated.url).pathname.slice(1);
        await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        expect(
          await eventually(async () => {
            const ready = await status(`${instance.url}/readyz`);
            return ready.status === 503 && /no schema/u.test(ready.body);
          }, 10_000),
        ).toBe(true);
        const response = await fetch(`${instance.url}/api/v1/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer prk_unknown" },
          body: JSON.stringify({ model: customer.persona.id, prompt: "Hi" }),
        });
        expect([401, 503]).toContain(response.status);
        const served = await fetch(`${instance.url}/api/v1/generate`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": customer.key },
          body: JSON.stringify({
            personaId: customer.persona.id,
            messages: [{ role: "user", content: "Hi" }],
          }),
        });
        expect(served.status).toBe(503);
        expect(served.headers.get("retry-after")).toMatch(/^\d+$/u);
        expect(alive(instance)).toBe(true);
        await instance.stop();
        // A restart applies the migrations to the empty database.
        const restarted = await spawnService(directory, {
          PERSONA_DATABASE_URL: recreated.url,
          PERSONA_SEED_DEMO: "false",
          PERSONA_INSTANCE_ID: "recreated",
        });
        instances.push(restarted);
        expect((await status(`${restarted.url}/readyz`)).status).toBe(200);
      } finally {
        await recreated.drop();
      }
    });

    it("answers within its deadline while the database hangs, says so in /readyz, and recovers when it answers again", async () => {
      const target = new URL(database.url);
      const proxy: TcpProxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      try {
        const viaProxy = new URL(database.url);
        viaProxy.hostname = "127.0.0.1";
        viaProxy.port = String(proxy.port);
        const instance = await spawnService(directory, {
          PERSONA_DATABASE_URL: viaProxy.toString(),
          PERSONA_SEED_DEMO: "false",
          PERSONA_INSTANCE_ID: "hung-database",
          PERSONA_STORAGE_TIMEOUT_MS: "1000",
          PERSONA_DATABASE_CONNECT_TIMEOUT_MS: "1000",
          PERSONA_READINESS_TIMEOUT_MS: "1000",
        });
        instances.push(instance);
        const customer = await createCustomer(store, {
          balanceMicros: 100_000_000,
          limits: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 },
        });
        const before = await loadOver([instance], customer, 500, "before-hang");
        expect(before.every((result) => result.status === 200)).toBe(true);

        proxy.hang();
        const during = await loadOver([instance], customer, 3_000, "hung");
        const health = await status(`${instance.url}/healthz`);
        const ready = await status(`${instance.url}/readyz`);
        expect(health).toMatchObject({ status: 200 });
        expect(health.elapsedMs).toBeLessThan(500);
        expect(ready.status).toBe(503);
        expect(ready.elapsedMs).toBeLessThan(2_500);
        expect(ready.body).toMatch(/"database":\{"status":"failing"/u);
        // Every request was answered, within deadline + margin, 200 (cached reads
        // before the hang bit) or 503 with Retry-After — never hung for minutes.
        expect(during.every((result) => [200, 503].includes(result.status))).toBe(true);
        expect(during.filter((result) => result.status === 503).length).toBeGreaterThan(0);
        expect(Math.max(...during.map((result) => result.elapsedMs))).toBeLessThan(4_000);
        for (const result of during.filter((each) => each.status === 503)) {
          expect(result.retryAfter).toMatch(/^\d+$/u);
        }
        expect(alive(instance)).toBe(true);

        proxy.resume();
        expect(
          await eventually(
            async () => (await status(`${instance.url}/readyz`)).status === 200,
            15_000,
          ),
        ).toBe(true);
        const after = await loadOver([instance], customer, 1_000, "after-hang");
        expect(after.every((result) => result.status === 200)).toBe(true);
        expect(
          await eventually(
            async () =>
              (
                await ledgerProblems(
                  store,
                  customer.accountId,
                  [...before, ...during, ...after],
                  100_000_000,
                )
              ).length === 0,
            10_000,
          ),
        ).toBe(true);
      } finally {
        await proxy.close();
      }
    });
  },
);

describe("Redis failing under load (rate limits in Redis)", () => {
  let proxy: TcpProxy;
  let instance: SpawnedService | undefined;
  let directory: string;
  beforeAll(async () => {
    const target = new URL(REDIS_URL);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-redis-faults-"));
  });
  afterAll(async () => {
    await instance?.stop();
    await proxy?.close();
    if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
  });

  it("refuses with 503 within its deadline while Redis hangs (fail closed, fast), and recovers", async () => {
    const file = path.join(directory, "store.sqlite");
    instance = await spawnService(directory, {
      PERSONA_DATABASE_URL: file,
      PERSONA_SEED_DEMO: "false",
      PERSONA_REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      PERSONA_REDIS_TIMEOUT_MS: "500",
      PERSONA_READINESS_TIMEOUT_MS: "1000",
    });
    const store = await openStore(file);
    try {
      const customer = await createCustomer(store, {
        balanceMicros: 100_000_000,
        limits: { minute: 1_000_000, hour: 1_000_000, day: 1_000_000 },
      });
      const before = await loadOver([instance], customer, 500, "before-redis-hang");
      expect(before.every((result) => result.status === 200)).toBe(true);

      proxy.hang();
      const during = await loadOver([instance], customer, 2_000, "redis-hung");
      expect(during.length).toBeGreaterThan(0);
      expect(during.every((result) => result.status === 503)).toBe(true);
      expect(Math.max(...during.map((result) => result.elapsedMs))).toBeLessThan(2_000);
      const ready = await status(`${instance.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatch(/"redis":\{"status":"failing"/u);
      expect((await status(`${instance.url}/healthz`)).status).toBe(200);

      proxy.resume();
      expect(
        await eventually(
          async () => (await status(`${instance?.url}/readyz`)).status === 200,
          10_000,
        ),
      ).toBe(true);
      const after = await loadOver([instance], customer, 500, "after-redis-hang");
      expect(after.every((result) => result.status === 200)).toBe(true);
      expect(
        await ledgerProblems(
          store,
          customer.accountId,
          [...before, ...during, ...after],
          100_000_000,
        ),
      ).toEqual([]);
    } finally {
      await closeStore(store);
    }
  });
});
