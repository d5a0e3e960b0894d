import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import { USAGE_COLUMN_TYPES, USAGE_COLUMNS } from "../src/storage/ledger-usage-row.js";
import { readUsageArchive, writeUsageArchive } from "../src/usage/usage-archive.js";
import { usageRow } from "../src/usage/usage-record.js";
import { describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore } from "./support/test-store.js";

// The usage row's columns have one list (storage/ledger-usage-row.ts): the
// ledgers' statements and the archive's lines derive from it, so it must
// be the table the migrations make, column for column, in order.

await describeEachDialect("the usage row's one column list", (database) => {
  let services: Services | undefined;

  beforeAll(async () => {
    services = await openStore(database.url);
  });
  afterAll(() => closeStore(services));

  it("is the usage_records table's columns, in order, with their types", async () => {
    if (services === undefined) throw new Error("no store");
    const { rows } =
      database.dialect === "sqlite"
        ? await sql<{ name: string; type: string }>`select name, lower(type) as type
            from pragma_table_info('usage_records') order by cid`.execute(services.database)
        : await sql<{ name: string; type: string }>`select column_name as name, data_type as type
            from information_schema.columns
            where table_schema = current_schema() and table_name = 'usage_records'
            order by ordinal_position`.execute(services.database);
    expect(rows.map((row) => row.name)).toEqual(USAGE_COLUMNS);
    expect(Object.fromEntries(rows.map((row) => [row.name, row.type]))).toEqual(USAGE_COLUMN_TYPES);
  });

  it("every ledger write fills the row as given, and the archive writes those columns", async () => {
    if (services === undefined) throw new Error("no store");
    const customer = await createCustomer(services, { balanceMicros: 1_000_000 });
    const served = {
      accountId: customer.accountId,
      apiKeyId: customer.keyId,
      personaId: customer.persona.id,
      personaVersion: 1,
      endpoint: "generate" as const,
      status: 200,
      inputTokens: 12,
      outputTokens: 7,
      costMicros: 0,
      requestId: "req-columns",
      paymentMethod: "balance" as const,
      paymentReference: null,
      upstream: "local",
      model: "llama-test",
      // No foreign key: any text is stored as given.
      oauthGrantId: "grant-columns",
    };
    const { balances } = services.billing;
    const { usage } = services;
    const reservation = await balances.reserve(customer.accountId, 500, "req-columns");
    if (reservation === undefined) throw new Error("not reserved");
    const { usageId } = await balances.settle(reservation, 300, served);
    const recordedId = await usage.record({
      ...served,
      requestId: "req-recorded",
      paymentMethod: "x402",
      paymentReference: "0xabc",
      costMicros: 250,
    });
    const stored = await services.database
      .selectFrom("usage_records")
      .selectAll()
      .where("id", "in", [usageId, recordedId])
      .orderBy("request_id")
      .execute();
    const asNumbers = stored.map((row) => ({
      ...row,
      status: Number(row.status),
      input_tokens: Number(row.input_tokens),
      output_tokens: Number(row.output_tokens),
      cost_micros: Number(row.cost_micros),
      persona_version: Number(row.persona_version),
      charged_micros: Number(row.charged_micros),
    }));
    const settledRow = asNumbers[0];
    const recordedRow = asNumbers[1];
    if (settledRow === undefined || recordedRow === undefined) throw new Error("rows missing");
    expect(settledRow).toEqual({
      ...usageRow(usageId, settledRow.created_at, served),
      cost_micros: 300,
      charged_micros: 300,
    });
    expect(recordedRow).toEqual(
      usageRow(recordedId, recordedRow.created_at, {
        ...served,
        requestId: "req-recorded",
        paymentMethod: "x402",
        paymentReference: "0xabc",
        costMicros: 250,
      }),
    );

    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "usage-columns-"));
    try {
      const day = settledRow.created_at.slice(0, 10);
      const written = await writeUsageArchive(
        directory,
        day,
        (async function* () {
          // A row read with more than its columns (a join, say) is archived with its columns only.
          yield stored.map((row) => ({ ...row, joined: "not a usage column" }));
        })(),
      );
      if (written.file === null) throw new Error("no archive file");
      const lines = gunzipSync(fs.readFileSync(written.file)).toString("utf8").trim().split("\n");
      expect(lines.map((line) => Object.keys(JSON.parse(line)))).toEqual([
        USAGE_COLUMNS,
        USAGE_COLUMNS,
      ]);
      const readBack = [];
      for await (const record of readUsageArchive(directory)) readBack.push(record);
      expect(readBack.map((record) => record.oauthGrantId)).toEqual([
        "grant-columns",
        "grant-columns",
      ]);

      // A file archived before migration 0030 has no `oauth_grant_id`: read as no grant.
      const older = fs.mkdtempSync(path.join(os.tmpdir(), "usage-columns-older-"));
      try {
        await writeUsageArchive(
          older,
          day,
          (async function* () {
            yield stored.map(({ oauth_grant_id: _newer, ...row }) => row as typeof settledRow);
          })(),
        );
        const records = [];
        for await (const record of readUsageArchive(older)) records.push(record);
        expect(records.map((record) => [record.id, record.oauthGrantId])).toEqual(
          stored.map((row) => [row.id, null]),
        );
      } finally {
        fs.rmSync(older, { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
