import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isolatedEnvironment, scratchDirectory } from "../../test-support/isolated-process.js";
import {
  ADMIN_SCRIPT,
  type SpawnedService,
  spawnService,
} from "../../test-support/spawn-service.js";
import type { Services } from "../src/services.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";

// Keys, accounts and personas are served from each instance's memory
//; a change made anywhere — another instance, the operator CLI,
// the test process — must reach every instance within a second.

const WITHIN_MS = 1_000;

async function generate(instance: SpawnedService, customer: StoreCustomer): Promise<number> {
  const response = await fetch(`${instance.url}/api/v1/generate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": customer.key },
    body: JSON.stringify({
      personaId: customer.persona.id,
      messages: [{ role: "user", content: "Still there?" }],
    }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Polls every instance until all answer `status`; returns how long it took (ms), or Infinity. */
async function untilAll(
  instances: readonly SpawnedService[],
  customer: StoreCustomer,
  status: number,
  changedAt: number,
): Promise<number> {
  const settled = new Set<number>();
  while (Date.now() - changedAt < 5_000) {
    for (const [index, instance] of instances.entries()) {
      if (!settled.has(index) && (await generate(instance, customer)) === status)
        settled.add(index);
    }
    if (settled.size === instances.length) return Date.now() - changedAt;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Number.POSITIVE_INFINITY;
}

await describeEachDialect("changes reach every instance's cache within a second", (database) => {
  let store: Services;
  let directory: string;
  const instances: SpawnedService[] = [];
  beforeAll(async () => {
    store = await openStore(database.url);
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-cache-"));
    for (const name of ["a", "b"]) {
      instances.push(
        await spawnService(directory, {
          PERSONA_DATABASE_URL: database.url,
          PERSONA_SEED_DEMO: "false",
          PERSONA_INSTANCE_ID: `cache-${name}`,
          PERSONA_ENV_FILE: path.join(directory, `${name}.env`),
        }),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await closeStore(store);
    if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
  });

  const served = async (customer: StoreCustomer) => {
    // Both instances have the key, account and persona in memory now.
    for (const instance of instances) {
      expect(await generate(instance, customer)).toBe(200);
      expect(await generate(instance, customer)).toBe(200);
    }
  };

  it("refuses a revoked key on every instance within a second (revoked by another process)", async () => {
    const customer = await createCustomer(store, { balanceMicros: 1_000_000 });
    await served(customer);
    const revokedAt = Date.now();
    expect(await store.keys.revoke(customer.keyId)).toBe(true);
    expect(await untilAll(instances, customer, 401, revokedAt)).toBeLessThan(WITHIN_MS);
  });

  it("refuses a suspended account's key on every instance within a second (suspended by the operator CLI)", async () => {
    const customer = await createCustomer(store, { balanceMicros: 1_000_000 });
    await served(customer);
    const suspendedAt = Date.now();
    const result = spawnSync(
      process.execPath,
      [ADMIN_SCRIPT, "account", "suspend", customer.accountId],
      {
        cwd: scratchDirectory("persona-admin-"),
        env: isolatedEnvironment({ PERSONA_DATABASE_URL: database.url }),
        encoding: "utf8",
      },
    );
    expect(result.status).toBe(0);
    // The CLI's own start-up is not the cache's delay: measure from its exit.
    const measured = await untilAll(instances, customer, 403, Math.max(suspendedAt, Date.now()));
    expect(measured).toBeLessThan(WITHIN_MS);
  });

  it("sees a persona's new access on every instance within a second", async () => {
    const customer = await createCustomer(store, { balanceMicros: 1_000_000 });
    const personify = (instance: SpawnedService) =>
      fetch(`${instance.url}/api/v1/personify`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": customer.key },
        body: JSON.stringify({ personaId: customer.persona.id, raw: "The meeting moved." }),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    await store.personas.setPersonifyAccess(customer.persona.id, true);
    for (const instance of instances) expect(await personify(instance)).toBe(200);
    const changedAt = Date.now();
    await store.personas.setPersonifyAccess(customer.persona.id, false);
    const until = changedAt + 5_000;
    const refused = new Set<number>();
    while (Date.now() < until && refused.size < instances.length) {
      for (const [index, instance] of instances.entries()) {
        if ((await personify(instance)) === 403) refused.add(index);
      }
    }
    expect(Date.now() - changedAt).toBeLessThan(WITHIN_MS);
    expect(refused.size).toBe(instances.length);
  });
});
