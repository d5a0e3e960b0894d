import { sql } from "kysely";
import type { Database } from "../storage/store.js";
import { CARRIED_FORWARD_KIND, type CarriedSums, carry, carryForward } from "./carried-forward.js";
import type { RetentionRun } from "./retention-run.js";

/**
 * Records the run's cutoff (`retention_cutoff`, migration 0012), which
 * only moves forward: the daily totals' triggers leave a deleted row older
 * than it counted (retention removed it, the totals are kept for ever).
 */
export async function recordCutoff(database: Database, cutoff: string): Promise<void> {
  await database
    .insertInto("retention_cutoff")
    .values({ id: 1, cutoff })
    .onConflict((conflict) =>
      conflict.column("id").doUpdateSet({
        cutoff: sql`case when excluded.cutoff > retention_cutoff.cutoff then excluded.cutoff else retention_cutoff.cutoff end`,
      }),
    )
    .execute();
}

/**
 * Rolls the ledger entries older than the run's cutoff (carried-forward
 * ones aside) into one `carried_forward` entry per account and month, in
 * transactions of `batchSize` entries, oldest first: each deletes its
 * entries and adds their sum to their months' entries, so every account's
 * ledger still sums to its balance after each commit.
 */
export async function rollUpLedger(run: RetentionRun): Promise<void> {
  const { database, cutoff, report } = run;
  while (!run.stopped()) {
    const rolled = await database.transaction().execute(async (transaction) => {
      const entries = await transaction
        .selectFrom("balance_entries")
        .select(["id", "account_id", "amount_micros", "created_at"])
        .where("created_at", "<", cutoff)
        .where("kind", "<>", CARRIED_FORWARD_KIND)
        .orderBy("created_at")
        .orderBy("id")
        .limit(run.batchSize)
        .execute();
      if (entries.length === 0) return { rolled: 0, months: [] };
      const sums: CarriedSums = new Map();
      for (const entry of entries) {
        carry(sums, entry.account_id, entry.created_at, Number(entry.amount_micros));
      }
      await carryForward(transaction, sums);
      await transaction
        .deleteFrom("balance_entries")
        .where(
          "id",
          "in",
          entries.map((entry) => entry.id),
        )
        .execute();
      return { rolled: entries.length, months: [...sums.keys()] };
    });
    if (rolled.rolled === 0) break;
    for (const id of rolled.months) run.months.add(id);
    report.ledgerEntriesRolledUp += rolled.rolled;
    report.batches += 1;
    await run.pause();
  }
}
