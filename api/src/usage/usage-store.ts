import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { deadlineIn } from "../storage/deadline.js";
import type { Store } from "../storage/store.js";
import { type UsageInput, type UsageRecord, usageRecordOf, usageRow } from "./usage-record.js";
import {
  type UsageReportFilter,
  type UsageReportLine,
  type UsageTally,
  usageReportLines,
} from "./usage-report.js";

/** The usage ledger: one row per request that reached an account. */
export class UsageStore {
  private readonly database: Store["database"];

  constructor(private readonly store: Pick<Store, "database" | "ledger" | "timeoutMs">) {
    this.database = store.database;
  }

  /** Appends a usage row (for requests not settled through the balance). */
  async record(usage: UsageInput): Promise<string> {
    const id = randomUUID();
    await this.store.ledger.record(
      usageRow(id, new Date().toISOString(), usage),
      deadlineIn(this.store.timeoutMs),
    );
    return id;
  }

  /** The rows of an account (or all), oldest first. */
  async list(accountId?: string): Promise<UsageRecord[]> {
    let query = this.database.selectFrom("usage_records").selectAll();
    if (accountId !== undefined) query = query.where("account_id", "=", accountId);
    const rows = await query.orderBy("created_at").orderBy("id").execute();
    return rows.map(usageRecordOf);
  }

  /** The rows carrying one of these request IDs. */
  async findByRequestIds(requestIds: readonly string[]): Promise<UsageRecord[]> {
    if (requestIds.length === 0) return [];
    const rows = await this.database
      .selectFrom("usage_records")
      .selectAll()
      .where("request_id", "in", [...requestIds])
      .execute();
    return rows.map(usageRecordOf);
  }

  /**
   * Usage per account, per UTC day and per persona (and version with
   * `byVersion`), oldest day first: the database sums the rows of each
   * day, account, persona, version, upstream and model within `filter`,
   * and {@link usageReportLines} makes the report's lines of those sums,
   * as it does of archived records.
   */
  async report(filter: UsageReportFilter = {}): Promise<UsageReportLine[]> {
    const day = sql<string>`substr(created_at, 1, 10)`;
    // The filter of usageFilterAdmits, asked of the database.
    let query = this.database
      .selectFrom("usage_records")
      .select([
        "account_id",
        "persona_id",
        "persona_version",
        "upstream",
        "model",
        day.as("day"),
        sql<number>`count(*)`.as("requests"),
        sql<number>`sum(case when status = 200 then 1 else 0 end)`.as("served"),
        sql<number>`cast(sum(input_tokens) as bigint)`.as("input_tokens"),
        sql<number>`cast(sum(output_tokens) as bigint)`.as("output_tokens"),
        sql<number>`cast(sum(cost_micros) as bigint)`.as("cost_micros"),
      ])
      .groupBy(["account_id", "persona_id", "persona_version", "upstream", "model", day]);
    if (filter.accountId !== undefined) query = query.where("account_id", "=", filter.accountId);
    if (filter.personaId !== undefined) query = query.where("persona_id", "=", filter.personaId);
    if (filter.from !== undefined) query = query.where("created_at", ">=", filter.from);
    // `to` is a whole day: everything before the next day's start.
    if (filter.to !== undefined) query = query.where(day, "<=", filter.to);
    const rows = await query.execute();
    return usageReportLines(
      rows.map(
        (row): UsageTally => ({
          accountId: row.account_id,
          day: row.day,
          personaId: row.persona_id,
          personaVersion: row.persona_version === null ? null : Number(row.persona_version),
          upstream: row.upstream,
          model: row.model,
          requests: Number(row.requests),
          served: Number(row.served),
          inputTokens: Number(row.input_tokens),
          outputTokens: Number(row.output_tokens),
          costMicros: Number(row.cost_micros),
        }),
      ),
      filter.byVersion === true,
    );
  }
}
