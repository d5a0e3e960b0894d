import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import type { Services } from "../src/services.js";
import { type FakeUpstream, startFakeUpstream } from "./support/fake-upstream.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, runWithConcurrency } from "./support/test-store.js";

const TOTAL_REQUESTS = 200;
const KILL_AFTER_SERVED = 60;
/** A slow upstream keeps requests (and their reservations) in flight. */
const REPLY = { kind: "reply", text: "Hello from upstream.", delayMs: 40 } as const;

// A process killed with SIGKILL in the middle of 200 requests, then
// restarted: every 200 the client saw has its ledger rows, and no
// reservation is left hanging.
await describeEachDialect("crash in the middle of a load", (database) => {
  let store: Services;
  let upstream: FakeUpstream;
  let directory: string;
  let running: SpawnedService | undefined;
  beforeAll(async () => {
    store = await openStore(database.url);
    upstream = await startFakeUpstream();
    upstream.behaviour = REPLY;
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-crash-"));
  });
  afterAll(async () => {
    await running?.stop();
    await closeStore(store);
    await upstream?.close();
    if (directory !== undefined) fs.rmSync(directory, { recursive: true, force: true });
  });

  const start = () =>
    spawnService(directory, {
      PERSONA_DATABASE_URL: database.url,
      PERSONA_SEED_DEMO: "false",
      PERSONA_LOG_LEVEL: "info",
      PERSONA_INSTANCE_ID: `crash-${database.dialect}`,
      PERSONA_OPENAI_BASE_URL: upstream.baseUrl,
      PERSONA_PROVIDER_MAX_RETRIES: "0",
      PERSONA_MODEL_PRICES: JSON.stringify({
        "openai-compatible:*": {
          inputMicrosPerMillionTokens: 1_000_000,
          outputMicrosPerMillionTokens: 1_000_000,
          maxOutputTokens: 100,
        },
      }),
    });

  /**
   * SIGKILLs the instance once requests of its are waiting for the upstream,
   * holding reservations: from the 60th 200 on, the upstream stops answering,
   * so the kill never lands in a moment when every request in flight has just
   * settled (on a loaded machine the client may not have read those answers
   * yet, and the kill's reset throws them away: unanswered, but holding nothing).
   */
  async function killWithRequestsInFlight(target: SpawnedService, accountId: string) {
    upstream.behaviour = { kind: "hang" };
    const until = Date.now() + 10_000;
    while ((await store.billing.balances.openReservations(accountId)) === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return target.stop("SIGKILL");
  }

  it("keeps a ledger row for every 200 and releases the reservations of the killed process", async () => {
    const customer = await createCustomer(store, {
      balanceMicros: 10_000_000,
      limits: { minute: 10_000, hour: 10_000, day: 10_000 },
      persona: { route: [{ upstream: "openai-compatible", model: "fake-model" }] },
    });
    running = await start();
    const served = new Set<string>();
    let killed: Promise<unknown> | undefined;
    const request = (index: number) => async () => {
      const requestId = `crash-${database.dialect}-${index}`;
      const target = running;
      if (target === undefined) throw new Error("no instance running");
      const response = await fetch(`${target.url}/api/v1/generate`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": customer.key,
          "x-request-id": requestId,
        },
        body: JSON.stringify({
          personaId: customer.persona.id,
          messages: [{ role: "user", content: `Request ${index}` }],
        }),
      });
      await response.arrayBuffer();
      if (response.status === 200) {
        served.add(requestId);
        if (served.size === KILL_AFTER_SERVED && killed === undefined) {
          killed = killWithRequestsInFlight(target, customer.accountId);
        }
      }
      return response.status;
    };
    const first = await runWithConcurrency(
      Array.from({ length: TOTAL_REQUESTS }, (_, index) => request(index)),
      10,
    );
    await killed;
    expect(killed).toBeDefined();
    upstream.behaviour = REPLY;
    const unanswered = first.flatMap((result, index) =>
      result.status === "rejected" ? [index] : [],
    );
    expect(unanswered.length).toBeGreaterThan(0);

    // The killed process left reservations behind (its requests in flight).
    expect(await store.billing.balances.openReservations(customer.accountId)).toBeGreaterThan(0);

    // Restarted under the same instance name, it releases them at once.
    running = await start();
    expect(await store.billing.balances.openReservations(customer.accountId)).toBe(0);
    expect((await store.billing.balances.balanceOf(customer.accountId))?.reservedMicros).toBe(0);

    // The rest of the 200 requests go to the restarted process.
    const second = await runWithConcurrency(
      unanswered.map((index) => request(index)),
      10,
    );
    expect(second.every((result) => result.status === "fulfilled" && result.value === 200)).toBe(
      true,
    );
    expect(served.size).toBe(
      first.filter((result) => result.status === "fulfilled" && result.value === 200).length +
        unanswered.length,
    );

    const rows = await store.usage.findByRequestIds([...served]);
    const servedRows = rows.filter((row) => row.status === 200);
    expect(new Set(servedRows.map((row) => row.requestId))).toEqual(served);
    const entries = await store.billing.balances.entries(customer.accountId);
    const charged = new Set(
      entries.filter((entry) => entry.kind === "charge").map((entry) => entry.usageId),
    );
    for (const row of servedRows) expect(charged.has(row.id)).toBe(true);
    const balance = await store.billing.balances.balanceOf(customer.accountId);
    expect(await store.billing.balances.ledgerSum(customer.accountId)).toBe(balance?.balanceMicros);
    expect(balance?.reservedMicros).toBe(0);
    expect(await store.billing.balances.openReservations(customer.accountId)).toBe(0);
  });
});
