import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnvironment, scratchDirectory } from "../../test-support/isolated-process.js";
import { ADMIN_SCRIPT, EXAMPLE_PERSONA_FILE, startApi } from "../../test-support/spawn-service.js";
import type { Services } from "../src/services.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";

await describeEachDialect("persona-admin billing commands", (database) => {
  let store: Services;
  beforeAll(async () => {
    store = await openStore(database.url);
  });
  afterAll(async () => {
    await closeStore(store);
  });

  function admin(...args: string[]) {
    const result = spawnSync(process.execPath, [ADMIN_SCRIPT, ...args], {
      cwd: scratchDirectory("persona-admin-billing-"),
      env: isolatedEnvironment({ PERSONA_DATABASE_URL: database.url }),
      encoding: "utf8",
    });
    return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
  }

  it("tops up, suspends and activates accounts, keeping the ledger equal to the balance", () => {
    const accountId = admin("account", "create", "Billing Ltd").stdout;
    const topUp = admin("account", "topup", accountId, "12.5", "--note", "invoice 7");
    expect(topUp.code).toBe(0);
    expect(JSON.parse(topUp.stdout)).toMatchObject({
      id: accountId,
      status: "active",
      currency: "USD",
      balance: "12.50",
      balanceMicros: 12_500_000,
      ledgerSumMicros: 12_500_000,
    });
    expect(admin("account", "topup", accountId, "0.000001").code).toBe(0);
    const bad = admin("account", "topup", accountId, "1.2345678");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/at most 6 decimals/u);
    expect(admin("account", "topup", "00000000-0000-4000-8000-000000000000", "1").stderr).toMatch(
      /no account/u,
    );

    expect(admin("account", "suspend", accountId).stdout).toBe(
      `account ${accountId} is now suspended`,
    );
    expect(JSON.parse(admin("account", "show", accountId).stdout)).toMatchObject({
      status: "suspended",
      balanceMicros: 12_500_001,
      ledgerSumMicros: 12_500_001,
    });
    expect(admin("account", "activate", accountId).code).toBe(0);
    expect(JSON.parse(admin("account", "show", accountId).stdout).status).toBe("active");
  });

  it("sets limits per key and per account, and makes a persona self-serve", () => {
    const accountId = admin("account", "create", "Limits Ltd").stdout;
    admin("key", "create", "--account", accountId, "--name", "k");
    const [key] = JSON.parse(admin("key", "list", "--account", accountId).stdout) as Array<{
      id: string;
    }>;
    const keyId = key?.id ?? "";
    expect(JSON.parse(admin("limits", "show", "--key", keyId).stdout).limits).toEqual({
      minute: 25,
      hour: 100,
      day: 500,
    });
    expect(admin("limits", "set", "--account", accountId, "--day", "5000").code).toBe(0);
    const set = admin("limits", "set", "--key", keyId, "--minute", "120", "--hour", "2000");
    expect(JSON.parse(set.stdout).limits).toEqual({ minute: 120, hour: 2000, day: 5000 });
    expect(
      JSON.parse(admin("limits", "set", "--key", keyId, "--minute", "default").stdout).limits
        .minute,
    ).toBe(25);
    expect(admin("limits", "set", "--key", keyId, "--minute", "0").stderr).toMatch(/whole number/u);
    expect(admin("limits", "set", "--key", keyId).stderr).toMatch(/at least one/u);

    const personaId = admin(
      "persona",
      "create",
      "--account",
      accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    ).stdout;
    expect(admin("persona", "set-self-serve", personaId, "--price", "0.01").stdout).toBe(
      `persona ${personaId} is self-serve at 0.01 USD per request`,
    );
    expect(JSON.parse(admin("persona", "show", personaId).stdout).selfServePriceMicros).toBe(
      10_000,
    );
    expect(admin("persona", "set-self-serve", personaId, "--off").code).toBe(0);
    expect(JSON.parse(admin("persona", "show", personaId).stdout).selfServePriceMicros).toBeNull();
    expect(admin("persona", "set-self-serve", personaId).code).toBe(1);
  });

  it("reports usage per account, day, persona and target (upstream and model), as a table or JSON", async () => {
    const accountId = admin("account", "create", "Usage Ltd").stdout;
    const personaId = admin(
      "persona",
      "create",
      "--account",
      accountId,
      "--file",
      EXAMPLE_PERSONA_FILE,
    ).stdout;
    // Two targets of the route answered; one request was refused before any target.
    for (const [status, cost, upstream, model] of [
      [200, 100, "claude", "claude-test-1"],
      [200, 100, "claude", "claude-test-1"],
      [200, 50, "local", "llama-test"],
      [429, 0, null, null],
    ] as const) {
      await store.usage.record({
        upstream,
        model,
        accountId,
        apiKeyId: null,
        personaId,
        endpoint: "generate",
        status,
        inputTokens: 0,
        outputTokens: 0,
        costMicros: cost,
        requestId: null,
        paymentMethod: "balance",
        paymentReference: null,
      });
    }
    const today = new Date().toISOString().slice(0, 10);
    const json = JSON.parse(admin("usage", "--account", accountId, "--json").stdout);
    const line = { accountId, day: today, personaId, inputTokens: 0, outputTokens: 0 };
    expect(json).toEqual([
      {
        ...line,
        upstream: "claude",
        model: "claude-test-1",
        requests: 2,
        served: 2,
        costMicros: 200,
      },
      { ...line, upstream: "local", model: "llama-test", requests: 1, served: 1, costMicros: 50 },
      { ...line, upstream: null, model: null, requests: 1, served: 0, costMicros: 0 },
    ]);
    const table = admin("usage", "--account", accountId).stdout.split("\n");
    expect(table[0]).toMatch(
      /^day\s+account\s+persona\s+upstream\s+model\s+requests\s+served\s+input tokens\s+output tokens\s+cost$/u,
    );
    expect(table).toHaveLength(4);
    expect(table[1]).toContain(personaId);
    expect(table[1]).toMatch(/\sclaude\s+claude-test-1\s+2\s+2\s+0\s+0\s+0\.0002$/u);
    expect(table[2]).toMatch(/\slocal\s+llama-test\s+1\s+1\s+0\s+0\s+0\.00005$/u);
    expect(table[3]).toMatch(/\s-\s+-\s+1\s+0\s+0\s+0\s+0(\.0+)?$/u);
    const charted = admin("usage", "--account", accountId, "--chart").stdout;
    expect(charted).toContain("Requests per day (4 in all)");
    expect(charted).toContain("Cost per day (0.00025 in all)");
    expect(charted.split("\n")).toContain(table[1]);
    expect(admin("usage", "--account", accountId, "--to", "2001-01-01").stdout).toBe(
      "no usage recorded for this selection",
    );
    expect(admin("usage", "--from", "yesterday").stderr).toMatch(/YYYY-MM-DD/u);
  });
});

describe("the demo seed of npm start", () => {
  it("gives the demo key raised limits and the demo account a starting balance", async () => {
    const api = await startApi();
    try {
      const keys = JSON.parse(api.admin("key", "list", "--account", api.accountId)) as Array<{
        id: string;
        name: string;
      }>;
      const demoKey = keys.find((key) => key.name === "demo key");
      expect(JSON.parse(api.admin("limits", "show", "--key", demoKey?.id ?? "")).limits).toEqual({
        minute: 1000,
        hour: 20_000,
        day: 200_000,
      });
      expect(JSON.parse(api.admin("account", "show", api.accountId))).toMatchObject({
        balance: "100.00",
        ledgerSumMicros: 100_000_000,
      });
    } finally {
      await api.stop();
    }
  });
});
