import type { UsageRecord } from "./usage-record.js";

/** One line of a usage report: an account's use of a persona on one UTC day. */
export interface UsageReportLine {
  accountId: string;
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  personaId: string | null;
  /** The persona version that answered; present only when the report is split by version. */
  personaVersion?: number | null;
  /**
   * The upstream that answered (its name in the operator configuration),
   * or null for requests refused before any target was asked (401, 402, 429 …).
   */
  upstream: string | null;
  /** The model of that upstream, or null with `upstream`. */
  model: string | null;
  requests: number;
  /** Requests answered 200. */
  served: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

/** Filters of a usage report; dates are `YYYY-MM-DD`, both ends included. */
export interface UsageReportFilter {
  accountId?: string;
  personaId?: string;
  from?: string;
  to?: string;
  /** Split each persona's lines by the version that answered. */
  byVersion?: boolean;
}

/**
 * The requests of one report key counted so far: a line whose persona
 * version is always known. The database's report reads one per key (its
 * SQL sums the rows of each), an archived record is one of a request.
 */
export type UsageTally = Omit<UsageReportLine, "personaVersion"> & {
  personaVersion: number | null;
};

/** A usage record as the report reads it. */
type ReportedRecord = Pick<
  UsageRecord,
  | "createdAt"
  | "accountId"
  | "personaId"
  | "personaVersion"
  | "upstream"
  | "model"
  | "status"
  | "inputTokens"
  | "outputTokens"
  | "costMicros"
>;

/**
 * Whether a record is within a report's filter: its account and persona,
 * `from` ≤ its time, its UTC day ≤ `to` (the whole day). `UsageStore.report`
 * asks the database the same in its `where`.
 */
export function usageFilterAdmits(record: ReportedRecord, filter: UsageReportFilter): boolean {
  return (
    (filter.accountId === undefined || record.accountId === filter.accountId) &&
    (filter.personaId === undefined || record.personaId === filter.personaId) &&
    (filter.from === undefined || record.createdAt >= filter.from) &&
    (filter.to === undefined || record.createdAt.slice(0, 10) <= filter.to)
  );
}

/** The tally of one request. */
function tallyOf(record: ReportedRecord): UsageTally {
  return {
    accountId: record.accountId,
    day: record.createdAt.slice(0, 10),
    personaId: record.personaId,
    personaVersion: record.personaVersion ?? null,
    upstream: record.upstream ?? null,
    model: record.model ?? null,
    requests: 1,
    served: record.status === 200 ? 1 : 0,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    costMicros: record.costMicros,
  };
}

/** Text in code-unit order (SQLite's `BINARY`, PostgreSQL's `C` collation), nulls last. */
function compareNullsLast(a: string | number | null | undefined, b: typeof a): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/**
 * The usage report's one grouping and order, over tallies of the database
 * or of archived records: one line per UTC day, account, persona (and
 * version with `byVersion`), upstream and model, summed; ordered by day,
 * account, persona, version, upstream and model, text in code-unit order,
 * absent values (a request refused before any target: no upstream) last.
 */
export async function usageReportLines(
  tallies: Iterable<UsageTally> | AsyncIterable<UsageTally>,
  byVersion: boolean,
): Promise<UsageReportLine[]> {
  const lines = new Map<string, UsageReportLine>();
  for await (const tally of tallies) {
    const version = byVersion ? tally.personaVersion : undefined;
    const key = JSON.stringify([
      tally.day,
      tally.accountId,
      tally.personaId,
      version,
      tally.upstream,
      tally.model,
    ]);
    let line = lines.get(key);
    if (line === undefined) {
      line = {
        accountId: tally.accountId,
        day: tally.day,
        personaId: tally.personaId,
        ...(byVersion ? { personaVersion: tally.personaVersion } : {}),
        upstream: tally.upstream,
        model: tally.model,
        requests: 0,
        served: 0,
        inputTokens: 0,
        outputTokens: 0,
        costMicros: 0,
      };
      lines.set(key, line);
    }
    line.requests += tally.requests;
    line.served += tally.served;
    line.inputTokens += tally.inputTokens;
    line.outputTokens += tally.outputTokens;
    line.costMicros += tally.costMicros;
  }
  return [...lines.values()].sort(
    (a, b) =>
      compareNullsLast(a.day, b.day) ||
      compareNullsLast(a.accountId, b.accountId) ||
      compareNullsLast(a.personaId, b.personaId) ||
      compareNullsLast(a.personaVersion, b.personaVersion) ||
      compareNullsLast(a.upstream, b.upstream) ||
      compareNullsLast(a.model, b.model),
  );
}

/**
 * The usage report of records read one by one (`persona-admin usage
 * --from-archive` reads them from the archive's files): those within
 * `filter`, grouped and ordered by {@link usageReportLines} as
 * `UsageStore.report` does the database's.
 */
export function usageReportOf(
  records: AsyncIterable<ReportedRecord>,
  filter: UsageReportFilter = {},
): Promise<UsageReportLine[]> {
  async function* tallies(): AsyncGenerator<UsageTally> {
    for await (const record of records) {
      if (usageFilterAdmits(record, filter)) yield tallyOf(record);
    }
  }
  return usageReportLines(tallies(), filter.byVersion === true);
}
