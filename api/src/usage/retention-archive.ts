import type { UsageRecordsTable } from "../storage/ledger-usage-row.js";
import type { Database } from "../storage/store.js";
import { firstDayWithRows } from "./retention-days.js";
import type { RetentionRun } from "./retention-run.js";
import { writeUsageArchive } from "./usage-archive.js";

/**
 * Usage rows in [from, to) that no ledger entry dated at or after
 * `cutoff` refers to (the ones the run removes), a page of `batchSize` at
 * a time. Only non-charge entries are asked for (a charge entry is dated
 * as its row: see the partition drops of postgres/postgres-retention.ts),
 * so PostgreSQL reads the partial index `balance_entries_usage_refs`
 * (migration 0015).
 */
async function* removablePages(
  database: Database,
  from: string,
  to: string,
  cutoff: string,
  batchSize: number,
): AsyncGenerator<UsageRecordsTable[]> {
  let after: { createdAt: string; id: string } | undefined;
  for (;;) {
    let query = database
      .selectFrom("usage_records")
      .selectAll()
      .where("created_at", ">=", from)
      .where("created_at", "<", to)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("balance_entries")
              .select("balance_entries.id")
              .whereRef("balance_entries.usage_id", "=", "usage_records.id")
              .where("balance_entries.kind", "<>", "charge")
              .where("balance_entries.created_at", ">=", cutoff),
          ),
        ),
      );
    if (after !== undefined) {
      const last = after;
      query = query.where(({ or, and, eb }) =>
        or([
          eb("created_at", ">", last.createdAt),
          and([eb("created_at", "=", last.createdAt), eb("id", ">", last.id)]),
        ]),
      );
    }
    const page = await query.orderBy("created_at").orderBy("id").limit(batchSize).execute();
    if (page.length === 0) return;
    yield page;
    const last = page[page.length - 1];
    if (last === undefined || page.length < batchSize) return;
    after = { createdAt: last.created_at, id: last.id };
  }
}

/**
 * Archives every usage row the run will remove to `archiveDir`, one file
 * per UTC day ({@link writeUsageArchive}), before the run changes any
 * row: the rows older than the cutoff that no ledger entry dated at or
 * after the cutoff refers to (older entries are rolled up first, freeing
 * their rows). A row archived but then kept (a refund made while the run
 * goes) is archived again when it goes; the archive reads it once. Adds
 * the files written to the run's report.
 *
 * @throws the file system's error (nothing in the database changed yet)
 */
export async function archiveRemovable(run: RetentionRun, archiveDir: string): Promise<void> {
  const { database, cutoff, report } = run;
  let from = "";
  while (!run.stopped()) {
    const span = await firstDayWithRows(database, from, cutoff);
    if (span === null) return;
    const written = await writeUsageArchive(
      archiveDir,
      span.day,
      removablePages(database, span.start, span.end, cutoff, run.batchSize),
    );
    if (written.file !== null) report.archiveFiles.push({ file: written.file, rows: written.rows });
    from = span.end;
  }
}
