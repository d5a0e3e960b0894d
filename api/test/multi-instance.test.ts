import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import type { Services } from "../src/services.js";
import {
  createTestDatabase,
  postgresUnavailable,
  suiteTitle,
  type TestDatabase,
} from "./support/test-databases.js";
import { closeStore, createCustomer, openStore } from "./support/test-store.js";

// Two API processes on two loopback ports sharing one PostgreSQL database
// (rate limits and balances hold across instances: docs/SCALING.md).
const skipReason = await postgresUnavailable();

describe.skipIf(skipReason !== undefined)(
  suiteTitle("two instances on one database", "postgres", skipReason),
  () => {
    let database: TestDatabase;
    let store: Services;
    let directory: string;
    const instances: SpawnedService[] = [];
    beforeAll(async () => {
      database = await createTestDatabase("postgres");
      // Migrations run here first; both instances then find them applied.
      store = await openStore(database.url);
      directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-instances-"));
      for (const name of ["a", "b"]) {
        instances.push(
          await spawnService(directory, {
            PERSONA_DATABASE_URL: database.url,
            PERSONA_SEED_DEMO: "false",
            PERSONA_INSTANCE_ID: `instance-${name}`,
            PERSONA_ENV_FILE: path.join(directory, `${name}.env`),
          }),
        );
      }
    });
    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await closeStore(store);
      await database?.drop();
      if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
    });

    const send = (index: number, key: string, personaId: string) =>
      fetch(`${instances[index % 2]?.url}/api/v1/generate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({
          personaId,
          messages: [{ role: "user", content: `Hello number ${index}!` }],
        }),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });

    it("lets exactly 25 of 40 concurrent requests of one fresh key through, across both instances", async () => {
      expect(instances[0]?.url).not.toBe(instances[1]?.url);
      const customer = await createCustomer(store, { balanceMicros: 1_000_000 });
      const statuses = await Promise.all(
        Array.from({ length: 40 }, (_, index) => send(index, customer.key, customer.persona.id)),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(25);
      expect(statuses.filter((status) => status === 429)).toHaveLength(15);
      const served = (await store.usage.list(customer.accountId)).filter(
        (row) => row.status === 200,
      );
      expect(served).toHaveLength(25);
    });

    it("serves exactly 7 of 20 concurrent requests of an account funded for 7, across both instances", async () => {
      // 7 requests at the offline engine's 100 micro-units each.
      const customer = await createCustomer(store, {
        balanceMicros: 700,
        limits: { minute: 1000, hour: 1000, day: 1000 },
      });
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, index) => send(index, customer.key, customer.persona.id)),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(7);
      expect(statuses.filter((status) => status === 429)).toHaveLength(13);
      const balance = await store.billing.balances.balanceOf(customer.accountId);
      expect(balance).toEqual({ currency: "USD", balanceMicros: 0, reservedMicros: 0 });
      expect(await store.billing.balances.ledgerSum(customer.accountId)).toBe(
        balance?.balanceMicros,
      );
    });

    it("serves a promoted version on both instances within 1 s (the change feed)", async () => {
      const customer = await createCustomer(store, {
        balanceMicros: 1_000_000,
        limits: { minute: 1000, hour: 1000, day: 1000 },
      });
      const id = customer.persona.id;
      const versionOn = async (index: number) => {
        const response = await fetch(`${instances[index]?.url}/api/v1/generate`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": customer.key },
          body: JSON.stringify({ personaId: id, messages: [{ role: "user", content: "Hi!" }] }),
        });
        await response.arrayBuffer();
        expect(response.status).toBe(200);
        return response.headers.get("persona-version");
      };
      // Both instances hold version 1 in their caches; a draft changes nothing.
      expect([await versionOn(0), await versionOn(1)]).toEqual(["1", "1"]);
      await store.personas.revise(id, { name: "Juniper Two" }, { draft: true });
      expect([await versionOn(0), await versionOn(1)]).toEqual(["1", "1"]);

      await store.personas.promote(id, 2);
      const promotedAt = Date.now();
      const seen: number[] = [];
      for (const index of [0, 1]) {
        while ((await versionOn(index)) !== "2") {
          expect(Date.now() - promotedAt).toBeLessThan(1000);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        seen.push(Date.now() - promotedAt);
      }
      expect(Math.max(...seen)).toBeLessThan(1000);
    });
  },
);
