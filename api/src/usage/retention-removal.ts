import { sql } from "kysely";
import { type CarriedSums, carry, carryForward } from "./carried-forward.js";
import { firstDayWithRows } from "./retention-days.js";
import type { RetentionRun } from "./retention-run.js";

/**
 * Removes the usage rows older than the run's cutoff that nothing in the
 * ledger refers to (archived before, see retention-archive.ts), a UTC day
 * at a time, in batches of `batchSize`. Each batch folds the charges its
 * rows carry (`charged_micros`, migration 0017) into their months'
 * `carried_forward` entries in the same transaction as the delete, so the
 * ledger's sum never moves.
 */
export async function removeUsage(run: RetentionRun): Promise<void> {
  const { database, cutoff, report } = run;
  let from = "";
  while (!run.stopped()) {
    const span = await firstDayWithRows(database, from, cutoff);
    if (span === null) return;
    const { start: dayStart, end: dayEnd } = span;
    while (!run.stopped()) {
      const removed = await database.transaction().execute(async (transaction) => {
        const { rows } = await sql<{
          id: string;
          account_id: string;
          created_at: string;
          charged_micros: number | string;
        }>`select u.id, u.account_id, u.created_at, u.charged_micros from usage_records u
          where u.created_at >= ${dayStart} and u.created_at < ${dayEnd}
            and not exists (select 1 from balance_entries b where b.usage_id = u.id and b.kind <> 'charge')
          order by u.created_at, u.id limit ${run.batchSize}`.execute(transaction);
        if (rows.length === 0) return { rows: 0, charges: 0, months: [] };
        const sums: CarriedSums = new Map();
        let charges = 0;
        for (const row of rows) {
          const charged = Number(row.charged_micros);
          if (charged <= 0) continue;
          carry(sums, row.account_id, row.created_at, -charged);
          charges += 1;
        }
        await carryForward(transaction, sums);
        await transaction
          .deleteFrom("usage_records")
          .where("created_at", ">=", dayStart)
          .where("created_at", "<", dayEnd)
          .where(
            "id",
            "in",
            rows.map((row) => row.id),
          )
          .execute();
        return { rows: rows.length, charges, months: [...sums.keys()] };
      });
      if (removed.rows === 0) break;
      for (const id of removed.months) run.months.add(id);
      report.usageRowsRemoved += removed.rows;
      report.ledgerEntriesRolledUp += removed.charges;
      report.batches += 1;
      await run.pause();
    }
    from = dayEnd;
  }
}
