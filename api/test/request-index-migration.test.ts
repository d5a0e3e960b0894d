import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import {
  describeEachDialect,
  openRawDatabase,
  type SuiteDatabase,
  writeOlderDatabase,
} from "./support/test-databases.js";
import { closeStore, openStore } from "./support/test-store.js";
import { insertFundedAccount, writeChargedUsage } from "./support/usage-ledger.js";

// Migration 0018 (WAL per request): the index on usage rows'
// `request_id` goes, on the table and (PostgreSQL) on every partition of
// it; rows written before keep their request IDs and are still found by them.

/** Names of the indexes on `usage_records` (and its partitions) whose definition names `request_id`. */
async function requestIdIndexes(database: SuiteDatabase): Promise<string[]> {
  const raw = openRawDatabase(database);
  try {
    const rows =
      database.dialect === "sqlite"
        ? await sql<{ name: string }>`select name from sqlite_master
            where type = 'index' and tbl_name = 'usage_records' and sql like '%request_id%'`.execute(
            raw,
          )
        : await sql<{ name: string }>`select indexname as name from pg_indexes
            where tablename like 'usage_records%' and indexdef like '%request_id%'`.execute(raw);
    return rows.rows.map((row) => row.name).sort();
  } finally {
    await raw.destroy();
  }
}

await describeEachDialect("migration 0018: no index on usage rows' request IDs", (database) => {
  let services: Services | undefined;
  const accountId = randomUUID();
  let indexesBefore: string[] = [];

  beforeAll(async () => {
    await writeOlderDatabase(database, "0018", async (raw) => {
      await insertFundedAccount(raw, {
        id: accountId,
        name: "Before 0018",
        createdAt: "2026-11-01T00:00:00.000Z",
        balanceMicros: 10_000,
      });
      await writeChargedUsage(
        raw,
        { accountId, costMicros: 1_000, requestId: "support-case-42" },
        new Date().toISOString(),
      );
    });
    indexesBefore = await requestIdIndexes(database);
    services = await openStore(database.url);
  });

  afterAll(async () => {
    if (services !== undefined) await closeStore(services);
  });

  it("drops the index, on every partition too, and rows are still found by request ID", async () => {
    expect(indexesBefore).toContain("usage_records_request_id");
    if (database.dialect === "postgres") {
      // The month partitions of migration 0013 had their own copy of it.
      expect(indexesBefore.length).toBeGreaterThan(1);
    }
    expect(await requestIdIndexes(database)).toEqual([]);
    const rows = await services?.usage.findByRequestIds(["support-case-42"]);
    expect(rows?.map((row) => [row.accountId, row.costMicros])).toEqual([[accountId, 1_000]]);
  });
});
