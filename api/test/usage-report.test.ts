import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import type { UsageInput, UsageRecord } from "../src/usage/usage-record.js";
import { usageReportOf } from "../src/usage/usage-report.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore } from "./support/test-store.js";

// The usage report has one grouping and order (usage/usage-report.ts): the
// database's report and the report of archived records
// (`persona-admin usage --from-archive`) give the same lines in the same
// order on both dialects, whatever the case of names or absent values.

async function* each(records: readonly UsageRecord[]): AsyncGenerator<UsageRecord> {
  yield* records;
}

await describeEachDialect("the usage report's one grouping", (database) => {
  let services: Services | undefined;

  beforeAll(async () => {
    services = await openStore(database.url);
  });
  afterAll(() => closeStore(services));

  it("orders the database's lines as an archive's: code-unit order, absent values last", async () => {
    if (services === undefined) throw new Error("no store");
    const customer = await createCustomer(services, { balanceMicros: 0 });
    const personaId = customer.persona.id;
    const base: UsageInput = {
      accountId: customer.accountId,
      apiKeyId: customer.keyId,
      personaId,
      endpoint: "generate",
      status: 200,
      inputTokens: 3,
      outputTokens: 2,
      costMicros: 10,
      requestId: null,
      paymentMethod: "balance",
      paymentReference: null,
    };
    const requests: UsageInput[] = [
      // A persona ID that was not found: no persona, no target.
      { ...base, personaId: null, status: 404, inputTokens: 0, outputTokens: 0, costMicros: 0 },
      { ...base, upstream: "alpha", model: "m-1", personaVersion: 1 },
      { ...base, upstream: "Zeta", model: "m-1", personaVersion: 1 },
      { ...base, upstream: "Zeta", model: "m-1", personaVersion: 2 },
      { ...base, status: 429, inputTokens: 0, outputTokens: 0, costMicros: 0 },
    ];
    for (const request of requests) await services.usage.record(request);
    const records = await services.usage.list(customer.accountId);
    const day = new Date().toISOString().slice(0, 10);
    const line = { accountId: customer.accountId, day };
    const sums = { inputTokens: 3, outputTokens: 2 };

    const lines = await services.usage.report({ accountId: customer.accountId });
    expect(lines).toEqual([
      {
        ...line,
        personaId,
        upstream: "Zeta",
        model: "m-1",
        requests: 2,
        served: 2,
        ...sums,
        inputTokens: 6,
        outputTokens: 4,
        costMicros: 20,
      },
      {
        ...line,
        personaId,
        upstream: "alpha",
        model: "m-1",
        requests: 1,
        served: 1,
        ...sums,
        costMicros: 10,
      },
      {
        ...line,
        personaId,
        upstream: null,
        model: null,
        requests: 1,
        served: 0,
        inputTokens: 0,
        outputTokens: 0,
        costMicros: 0,
      },
      {
        ...line,
        personaId: null,
        upstream: null,
        model: null,
        requests: 1,
        served: 0,
        inputTokens: 0,
        outputTokens: 0,
        costMicros: 0,
      },
    ]);
    expect(await usageReportOf(each(records), { accountId: customer.accountId })).toEqual(lines);

    const byVersion = { accountId: customer.accountId, byVersion: true };
    const versioned = await services.usage.report(byVersion);
    expect(
      versioned.map((entry) => [entry.personaId === null, entry.personaVersion, entry.upstream]),
    ).toEqual([
      [false, 1, "Zeta"],
      [false, 1, "alpha"],
      [false, 2, "Zeta"],
      [false, null, null],
      [true, null, null],
    ]);
    expect(await usageReportOf(each(records), byVersion)).toEqual(versioned);
  });
});
