import { setTimeout as delay } from "node:timers/promises";
import { type Kysely, sql } from "kysely";
import type { Logger } from "../logging/logger.js";
import { countPaymentsBefore, removePaymentsBefore } from "../payments/payment-retention.js";
import type { DatabaseSchema } from "../storage/schema.js";
import type { Store } from "../storage/store.js";
import { CARRIED_FORWARD_KIND } from "./retention-migration.js";
import { RetentionPreflightError, retentionProblems } from "./retention-preflight.js";
import { type RetentionSettings, retentionCutoff } from "./retention-settings.js";
import { writeUsageArchive } from "./usage-archive.js";
import {
  ensureUsagePartitions,
  monthsAhead,
  PARTITION_LOCK_TIMEOUT_MS,
  type UsagePartition,
  usagePartitioned,
  usagePartitions,
} from "./usage-partitions.js";
import type { UsageRecordsTable } from "./usage-tables.js";

/** The ID of the carried-forward ledger entry of an account and month (`YYYY-MM`). */
export function carriedForwardId(accountId: string, month: string): string {
  return `carried-forward:${month}:${accountId}`;
}

/** Amounts to carry forward (micro-units, signed), by `carried_forward` entry ID. */
type CarriedSums = Map<string, { accountId: string; month: string; micros: number }>;

/** Adds an amount of `accountId` dated `createdAt` (ISO 8601) to its month's sum. */
function carry(sums: CarriedSums, accountId: string, createdAt: string, micros: number): void {
  const month = createdAt.slice(0, 7);
  const key = carriedForwardId(accountId, month);
  const sum = sums.get(key) ?? { accountId, month, micros: 0 };
  sum.micros += micros;
  sums.set(key, sum);
}

/**
 * Adds each sum to its month's `carried_forward` entry (made when missing),
 * inside the caller's transaction.
 */
async function carryForward(transaction: Db, sums: CarriedSums): Promise<void> {
  for (const [id, sum] of sums) {
    await transaction
      .insertInto("balance_entries")
      .values({
        id,
        account_id: sum.accountId,
        kind: CARRIED_FORWARD_KIND,
        amount_micros: sum.micros,
        usage_id: null,
        note: `entries of ${sum.month} carried forward by usage retention`,
        created_at: `${sum.month}-01T00:00:00.000Z`,
      })
      .onConflict((conflict) =>
        conflict.column("id").doUpdateSet({
          amount_micros: sql`balance_entries.amount_micros + excluded.amount_micros`,
        }),
      )
      .execute();
  }
}

/** What the next run would remove. */
export interface RetentionPreview {
  /** Null when retention is off. */
  days: number | null;
  cutoff: string | null;
  /** Usage rows older than the cutoff. */
  usageRows: number;
  /** Ledger entries older than the cutoff (carried-forward ones aside), to be rolled up. */
  ledgerEntries: number;
  archiveDir: string | null;
  /** x402 payment rows older than the cutoff. */
  paymentRows: number;
  /**
   * PostgreSQL: the monthly partitions of `usage_records` wholly older than
   * the cutoff, dropped whole (unless a ledger entry still refers to one of
   * their rows); empty on SQLite.
   */
  partitions: string[];
}

/** What a run did. */
export interface RetentionReport {
  cutoff: string | null;
  /** `off`: retention is off; `busy`: another run (another instance) holds the work. */
  skipped?: "off" | "busy";
  usageRowsRemoved: number;
  ledgerEntriesRolledUp: number;
  /** x402 payment rows removed (older than the cutoff). */
  paymentRowsRemoved: number;
  /** Account-months whose carried-forward entry was made or grew. */
  carriedForwardMonths: number;
  /**
   * Archive files written, with their row counts: every row the run
   * removes (a row a newer ledger entry refers to is kept, and not archived).
   */
  archiveFiles: Array<{ file: string; rows: number }>;
  /** Transactions that removed rows. */
  batches: number;
  /** SQLite: bytes the file gave back by incremental vacuum (0 on PostgreSQL or with auto_vacuum off). */
  reclaimedBytes: number;
  /** PostgreSQL: monthly partitions of `usage_records` dropped whole (their rows are in `usageRowsRemoved`). */
  partitionsDropped: string[];
  /** PostgreSQL: monthly partitions made ahead (the current month and the next two). */
  partitionsCreated: string[];
}

/** A report of a run that removed nothing (yet). */
function emptyReport(cutoff: string | null): RetentionReport {
  return {
    cutoff,
    usageRowsRemoved: 0,
    ledgerEntriesRolledUp: 0,
    paymentRowsRemoved: 0,
    carriedForwardMonths: 0,
    archiveFiles: [],
    batches: 0,
    reclaimedBytes: 0,
    partitionsDropped: [],
    partitionsCreated: [],
  };
}

/** Times a partition's drop tries for its lock ({@link PARTITION_LOCK_TIMEOUT_MS} each) before batched deletes take its rows. */
const DROP_TRIES = 20;

/** Key of the PostgreSQL advisory lock that one retention run holds ("persona-retention"). */
export const RETENTION_LOCK_KEY = 7_302_026_026;

type Db = Kysely<DatabaseSchema>;

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
}

/**
 * Usage retention: removes usage rows older than the cutoff and rolls
 * ledger entries older than it into one `carried_forward` entry per
 * account and month (so every account's ledger sum stays its balance), and
 * removes x402 payment rows older than it, in transactions of `batchSize`
 * rows with a pause between them, off the request path. Daily totals are
 * kept (migration 0012's triggers leave them alone).
 *
 * A run changes nothing until everything that can fail outside the
 * database has succeeded: first the preflight (the database takes a write,
 * the archive folder can be written: {@link retentionProblems}), then,
 * when `archiveDir` is set, the archive of every usage row it will remove
 * (per UTC day), and only then the database steps: the cutoff recorded,
 * the ledger rolled up, partitions dropped, usage rows and payment rows
 * deleted. Each of those commits in batches that keep the ledger's sum,
 * so a run stopped or failing among them leaves a consistent database that
 * the next run completes. On SQLite the file then gives back its free
 * pages (`PRAGMA incremental_vacuum`, when auto_vacuum is INCREMENTAL).
 * On PostgreSQL one instance at a time does the work (a session advisory
 * lock, tried, never waited for), and `usage_records` being partitioned by
 * month (migration 0013), a month wholly older than the cutoff is dropped
 * whole (`drop table`, which locks `usage_records` for a moment, waiting
 * at most {@link PARTITION_LOCK_TIMEOUT_MS} for it) instead of deleted row
 * by row; the month at the cutoff's edge and the default
 * partition still go by batched deletes. Each run (and the start of the
 * background job) also makes the partitions of the current month and the
 * next two.
 */
export class UsageRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionReport> | undefined;
  /** The partitions made when the job starts. */
  private starting: Promise<unknown> | undefined;
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: Pick<
      Store,
      "database" | "dialect" | "probe" | "timeoutMs" | "location"
    >,
    readonly settings: RetentionSettings,
    private readonly logger?: Logger,
  ) {}

  /** Counts what a run at `now` would remove. */
  async preview(now: Date = new Date()): Promise<RetentionPreview> {
    const { days } = this.settings;
    const archiveDir = this.settings.archiveDir ?? null;
    if (days === null) {
      return {
        days,
        cutoff: null,
        usageRows: 0,
        ledgerEntries: 0,
        archiveDir,
        paymentRows: 0,
        partitions: [],
      };
    }
    const cutoff = retentionCutoff(days, now);
    const database = this.store.database;
    const usage = await database
      .selectFrom("usage_records")
      .select([
        sql<number>`count(*)`.as("rows"),
        sql<number>`count(case when charged_micros > 0 then 1 end)`.as("charges"),
      ])
      .where("created_at", "<", cutoff)
      .executeTakeFirst();
    const ledger = await database
      .selectFrom("balance_entries")
      .select(sql<number>`count(*)`.as("rows"))
      .where("created_at", "<", cutoff)
      .where("kind", "<>", CARRIED_FORWARD_KIND)
      .executeTakeFirst();
    return {
      days,
      cutoff,
      usageRows: Number(usage?.rows ?? 0),
      // A usage row's charge (migration 0017) is an entry of the ledger too.
      ledgerEntries: Number(ledger?.rows ?? 0) + Number(usage?.charges ?? 0),
      archiveDir,
      paymentRows: await countPaymentsBefore(database, cutoff),
      partitions: (await this.droppablePartitions(database, cutoff)).map(
        (partition) => partition.name,
      ),
    };
  }

  /**
   * Runs retention once (the background job, or `persona-admin storage
   * retention`). Returns at once with `skipped` when off, when a run of this
   * process is under way, or (PostgreSQL) when another instance holds the
   * work.
   *
   * @throws {RetentionPreflightError} when the preflight finds a problem
   *   (nothing was changed)
   * @throws the store's or the file system's error: from the archive,
   *   before any row changed; from the database steps, what committed
   *   stays consistent (the next run goes on from there)
   */
  run(now: Date = new Date()): Promise<RetentionReport> {
    const { days } = this.settings;
    if (days === null) return Promise.resolve({ ...emptyReport(null), skipped: "off" });
    const cutoff = retentionCutoff(days, now);
    if (this.running !== undefined) {
      return Promise.resolve({ ...emptyReport(cutoff), skipped: "busy" });
    }
    const run = (async (): Promise<RetentionReport> => {
      // Checked before the lock's connection is asked for: an unreachable database is named too.
      const problems = await this.preflight({ create: true });
      if (problems.length > 0) throw new RetentionPreflightError(problems);
      const report = await this.exclusively((database) => this.work(database, cutoff, now));
      return report ?? { ...emptyReport(cutoff), skipped: "busy" };
    })();
    this.running = run;
    return run.finally(() => {
      this.running = undefined;
    });
  }

  /** One run's steps, after its preflight, on a connection that holds the retention lock. */
  private async work(database: Db, cutoff: string, now: Date): Promise<RetentionReport> {
    const report = emptyReport(cutoff);
    const months = new Set<string>();
    report.partitionsCreated = await this.makePartitions(database, now);
    // The file system's part first: a full disk fails the run before any row changed.
    await this.archiveRemovable(database, cutoff, report);
    if (this.stopped) return report;
    await this.recordCutoff(database, cutoff);
    await this.rollUpLedger(database, cutoff, report, months);
    await this.dropPartitions(database, cutoff, report, months);
    await this.removeUsage(database, cutoff, report, months);
    report.carriedForwardMonths = months.size;
    const payments = await removePaymentsBefore(
      database,
      cutoff,
      this.settings.batchSize,
      async () => {
        await this.pause();
        return !this.stopped;
      },
    );
    report.paymentRowsRemoved = payments.rows;
    report.batches += payments.batches;
    if (this.store.dialect === "sqlite") report.reclaimedBytes = await this.vacuum(database);
    return report;
  }

  /**
   * What a run needs before it changes anything (see {@link retentionProblems}):
   * the real run checks with `create` (making a missing archive folder),
   * `storage retention --dry-run` without (leaving nothing behind).
   *
   * @returns the problems, each naming the setting, its value and what is wrong; empty when a run can go
   */
  preflight(options: { create: boolean }): Promise<string[]> {
    return retentionProblems(this.store, this.settings.archiveDir, options);
  }

  /**
   * PostgreSQL: makes the monthly partitions of `now`'s month and the next
   * two (under the retention lock; nothing when another instance holds it).
   *
   * @returns the partitions made
   */
  async ensurePartitions(now: Date = new Date()): Promise<string[]> {
    if (this.store.dialect !== "postgres") return [];
    return (await this.exclusively((database) => this.makePartitions(database, now))) ?? [];
  }

  /**
   * Starts the background job: a first run a minute after start, then every
   * `intervalMs`. On PostgreSQL the partitions ahead are made at once, and
   * with retention off the job still makes them every `intervalMs`.
   */
  start(firstRunMs = 60_000): void {
    if (this.timer !== undefined) return;
    if (this.settings.days === null && this.store.dialect !== "postgres") return;
    const partitionsMade = (error: unknown) => {
      if (!this.stopping.signal.aborted) {
        this.logger?.error({ err: error }, "making usage partitions failed; tried again later");
      }
      return [];
    };
    this.starting = this.ensurePartitions().catch(partitionsMade);
    const tick = () => {
      const work = (this.starting ?? Promise.resolve()).then(() =>
        this.settings.days === null
          ? this.ensurePartitions().then(() => ({
              usageRowsRemoved: 0,
              ledgerEntriesRolledUp: 0,
              paymentRowsRemoved: 0,
            }))
          : this.run(),
      );
      work
        .then((report) => {
          if (
            report.usageRowsRemoved > 0 ||
            report.ledgerEntriesRolledUp > 0 ||
            report.paymentRowsRemoved > 0
          ) {
            this.logger?.info({ retention: report }, "usage retention removed old rows");
          }
        })
        .catch((error: unknown) => {
          if (this.stopping.signal.aborted) return;
          this.logger?.error({ err: error }, "usage retention failed; it runs again later");
        })
        .finally(() => {
          if (this.stopping.signal.aborted) return;
          this.timer = setTimeout(tick, this.settings.intervalMs);
          this.timer.unref();
        });
    };
    this.timer = setTimeout(tick, firstRunMs);
    this.timer.unref();
  }

  /** Stops the background job: no new batch starts; waits for the one under way. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await this.starting;
    await this.running?.catch(() => undefined);
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private async pause(): Promise<void> {
    if (this.settings.pauseMs === 0 || this.stopped) return;
    await delay(this.settings.pauseMs, undefined, { signal: this.stopping.signal }).catch(
      () => undefined,
    );
  }

  /** Runs `work` alone: on PostgreSQL under a session advisory lock; undefined when it is held. */
  private async exclusively<T>(work: (database: Db) => Promise<T>): Promise<T | undefined> {
    if (this.store.dialect !== "postgres") return work(this.store.database);
    return this.store.database.connection().execute(async (connection) => {
      const { rows } = await sql<{
        locked: boolean;
      }>`select pg_try_advisory_lock(${RETENTION_LOCK_KEY}) as locked`.execute(connection);
      if (rows[0]?.locked !== true) return undefined;
      try {
        return await work(connection);
      } finally {
        await sql`select pg_advisory_unlock(${RETENTION_LOCK_KEY})`.execute(connection);
      }
    });
  }

  /** Makes the partitions ahead, on a connection that holds the retention lock. */
  private async makePartitions(database: Db, now: Date): Promise<string[]> {
    if (this.store.dialect !== "postgres" || !(await usagePartitioned(database))) return [];
    return ensureUsagePartitions(database, monthsAhead(now));
  }

  /** PostgreSQL: the monthly partitions whose every possible row is older than the cutoff. */
  private async droppablePartitions(database: Db, cutoff: string): Promise<UsagePartition[]> {
    if (this.store.dialect !== "postgres" || !(await usagePartitioned(database))) return [];
    return (await usagePartitions(database)).filter(
      (partition) => partition.to !== null && partition.to <= cutoff,
    );
  }

  /**
   * PostgreSQL: drops each monthly partition wholly older than the cutoff
   * (its rows archived by {@link archiveRemovable} before), folding the
   * charges its rows carry (`charged_micros`, migration 0017) into the
   * month's `carried_forward` entries in the drop's transaction. A partition a ledger entry still refers to is left to
   * the batched deletes, which keep the rows referred to. Only entries that
   * are not charges can: a charge entry (before migration 0017) is dated
   * as its usage row (settlement and late charge wrote both from one input), so it was
   * rolled up with the month; a refund (`adjustment`) is dated when it is
   * made. So the check reads the non-charge entries that refer to usage
   * (partial index `balance_entries_usage_refs`, migration 0013), not the
   * month's rows. The reads use one core at most (no parallel workers),
   * leaving the others to the request path. The request path writes rows
   * dated now, never into such a month, so no row arrives between the
   * archive and the drop; a row a newer entry refers to was not archived,
   * and keeps its month from being dropped.
   */
  private async dropPartitions(
    database: Db,
    cutoff: string,
    report: RetentionReport,
    months: Set<string>,
  ): Promise<void> {
    for (const partition of await this.droppablePartitions(database, cutoff)) {
      if (this.stopped) return;
      const table = sql.table(partition.name);
      const referenced = await sql<{
        found: boolean;
      }>`select exists (select 1 from balance_entries b
          where b.kind <> 'charge' and b.usage_id is not null
            and exists (select 1 from ${table} u where u.id = b.usage_id)) as found`.execute(
        database,
      );
      if (referenced.rows[0]?.found !== false) continue;
      const { counted, charges } = await database.transaction().execute(async (transaction) => {
        await sql`set local max_parallel_workers_per_gather = 0`.execute(transaction);
        const rows = await sql<{ rows: string }>`select count(*) as rows from ${table}`.execute(
          transaction,
        );
        const charged = await sql<{
          account_id: string;
          month: string;
          micros: string;
          charges: string;
        }>`select account_id, substr(created_at, 1, 7) as month, sum(charged_micros) as micros,
            count(*) as charges
          from ${table} where charged_micros > 0 group by 1, 2`.execute(transaction);
        return { counted: rows, charges: charged.rows };
      });
      // The month's charges (migration 0017) go into its carried-forward entries with the drop.
      const sums: CarriedSums = new Map();
      for (const charge of charges) {
        carry(sums, charge.account_id, charge.month, -Number(charge.micros));
      }
      for (let attempt = 1; attempt <= DROP_TRIES && !this.stopped; attempt += 1) {
        try {
          await database.transaction().execute(async (transaction) => {
            await sql
              .raw(`set local lock_timeout = ${PARTITION_LOCK_TIMEOUT_MS}`)
              .execute(transaction);
            await carryForward(transaction, sums);
            await sql`drop table ${table}`.execute(transaction);
          });
        } catch (error) {
          if ((error as { code?: unknown }).code !== "55P03") throw error;
          await this.pause();
          continue;
        }
        report.usageRowsRemoved += Number(counted.rows[0]?.rows ?? 0);
        report.ledgerEntriesRolledUp += charges.reduce((sum, row) => sum + Number(row.charges), 0);
        for (const id of sums.keys()) months.add(id);
        report.partitionsDropped.push(partition.name);
        report.batches += 1;
        break;
      }
    }
  }

  /**
   * The first UTC day in [from, to) that holds usage rows.
   *
   * @returns that day's bounds (its end is at most `to`), or null when no row is left in [from, to)
   */
  private async firstDayWithRows(
    database: Db,
    from: string,
    to: string,
  ): Promise<{ day: string; start: string; end: string } | null> {
    const oldest = await database
      .selectFrom("usage_records")
      .select(sql<string | null>`min(created_at)`.as("created_at"))
      .where("created_at", ">=", from)
      .where("created_at", "<", to)
      .executeTakeFirst();
    if (oldest?.created_at == null) return null;
    const day = oldest.created_at.slice(0, 10);
    const end = nextDay(day) < to ? nextDay(day) : to;
    return { day, start: `${day}T00:00:00.000Z`, end };
  }

  /**
   * When `archiveDir` is set, archives every usage row the run will remove,
   * one file per UTC day, before the run changes any row: the rows older
   * than the cutoff that no ledger entry dated at or after the cutoff
   * refers to (older entries are rolled up first, freeing their rows). A
   * row archived but then kept (a refund made while the run goes) is
   * archived again when it goes; the archive reads it once.
   *
   * @throws the file system's error (nothing in the database changed yet)
   */
  private async archiveRemovable(
    database: Db,
    cutoff: string,
    report: RetentionReport,
  ): Promise<void> {
    const { archiveDir } = this.settings;
    if (archiveDir === undefined) return;
    let from = "";
    while (!this.stopped) {
      const span = await this.firstDayWithRows(database, from, cutoff);
      if (span === null) return;
      const written = await writeUsageArchive(
        archiveDir,
        span.day,
        this.pages(database, span.start, span.end, cutoff),
      );
      if (written.file !== null)
        report.archiveFiles.push({ file: written.file, rows: written.rows });
      from = span.end;
    }
  }

  private async recordCutoff(database: Db, cutoff: string): Promise<void> {
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

  private async rollUpLedger(
    database: Db,
    cutoff: string,
    report: RetentionReport,
    months: Set<string>,
  ): Promise<void> {
    while (!this.stopped) {
      const rolled = await database.transaction().execute(async (transaction) => {
        const entries = await transaction
          .selectFrom("balance_entries")
          .select(["id", "account_id", "amount_micros", "created_at"])
          .where("created_at", "<", cutoff)
          .where("kind", "<>", CARRIED_FORWARD_KIND)
          .orderBy("created_at")
          .orderBy("id")
          .limit(this.settings.batchSize)
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
      for (const id of rolled.months) months.add(id);
      report.ledgerEntriesRolledUp += rolled.rolled;
      report.batches += 1;
      await this.pause();
    }
  }

  /**
   * Usage rows in [from, to) that no ledger entry dated at or after
   * `cutoff` refers to (the ones the run removes), a page at a time. Only
   * non-charge entries are asked for (a charge entry is dated as its row:
   * see {@link dropPartitions}), so PostgreSQL reads the partial index
   * `balance_entries_usage_refs` (migration 0015).
   */
  private async *pages(
    database: Db,
    from: string,
    to: string,
    cutoff: string,
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
      const page = await query
        .orderBy("created_at")
        .orderBy("id")
        .limit(this.settings.batchSize)
        .execute();
      if (page.length === 0) return;
      yield page;
      const last = page[page.length - 1];
      if (last === undefined || page.length < this.settings.batchSize) return;
      after = { createdAt: last.created_at, id: last.id };
    }
  }

  /**
   * Removes the usage rows older than the cutoff that nothing in the ledger
   * refers to (archived by {@link archiveRemovable} before), a day at a
   * time, in batches. Each batch
   * folds the charges its rows carry (`charged_micros`, migration 0017)
   * into their months' `carried_forward` entries in the same transaction
   * as the delete, so the ledger's sum never moves.
   */
  private async removeUsage(
    database: Db,
    cutoff: string,
    report: RetentionReport,
    months: Set<string>,
  ): Promise<void> {
    let from = "";
    while (!this.stopped) {
      const span = await this.firstDayWithRows(database, from, cutoff);
      if (span === null) return;
      const { start: dayStart, end: dayEnd } = span;
      while (!this.stopped) {
        const removed = await database.transaction().execute(async (transaction) => {
          const { rows } = await sql<{
            id: string;
            account_id: string;
            created_at: string;
            charged_micros: number | string;
          }>`select u.id, u.account_id, u.created_at, u.charged_micros from usage_records u
            where u.created_at >= ${dayStart} and u.created_at < ${dayEnd}
              and not exists (select 1 from balance_entries b where b.usage_id = u.id and b.kind <> 'charge')
            order by u.created_at, u.id limit ${this.settings.batchSize}`.execute(transaction);
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
        for (const id of removed.months) months.add(id);
        report.usageRowsRemoved += removed.rows;
        report.ledgerEntriesRolledUp += removed.charges;
        report.batches += 1;
        await this.pause();
      }
      from = dayEnd;
    }
  }

  /** SQLite: gives free pages back to the file system in steps; returns the bytes given back. */
  private async vacuum(database: Db): Promise<number> {
    const mode = await sql<{ auto_vacuum: number }>`pragma auto_vacuum`.execute(database);
    if (Number(mode.rows[0]?.auto_vacuum) !== 2) return 0;
    const pageSize = Number(
      (await sql<{ page_size: number }>`pragma page_size`.execute(database)).rows[0]?.page_size,
    );
    let reclaimed = 0;
    while (!this.stopped) {
      const free = await sql<{
        freelist_count: number;
      }>`pragma freelist_count`.execute(database);
      const pages = Number(free.rows[0]?.freelist_count ?? 0);
      if (pages === 0) break;
      const step = Math.min(pages, Math.max(this.settings.batchSize, 256));
      await sql.raw(`pragma incremental_vacuum(${step})`).execute(database);
      reclaimed += step * pageSize;
      await this.pause();
    }
    // The file itself shrinks at the next checkpoint of the write-ahead log.
    return reclaimed;
  }
}
