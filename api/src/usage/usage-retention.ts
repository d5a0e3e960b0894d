import { setTimeout as delay } from "node:timers/promises";
import { sql } from "kysely";
import type { Logger } from "../logging/logger.js";
import { emptyOAuthSweep, sweepExpiredOAuth } from "../oauth/oauth-sweep.js";
import { removeExpiredSamples } from "../online-evaluation/online-score-store.js";
import { countPaymentsBefore, removePaymentsBefore } from "../payments/payment-retention.js";
import { StorageUnavailableError } from "../storage/storage-error.js";
import type { Database, Store } from "../storage/store.js";
import { CARRIED_FORWARD_KIND } from "./carried-forward.js";
import { archiveRemovable } from "./retention-archive.js";
import type { ReclaimSetup, RetentionDialect } from "./retention-dialect.js";
import { retentionDialectOf } from "./retention-dialects.js";
import { recordCutoff, rollUpLedger } from "./retention-ledger.js";
import { RetentionPreflightError, retentionProblems } from "./retention-preflight.js";
import { removeUsage } from "./retention-removal.js";
import { emptyReport, type RetentionPreview, type RetentionReport } from "./retention-report.js";
import type { RetentionRun } from "./retention-run.js";
import { type RetentionSettings, retentionCutoff } from "./retention-settings.js";

/**
 * Usage retention: removes usage rows older than the cutoff and rolls
 * ledger entries older than it into one `carried_forward` entry per
 * account and month (so every account's ledger sum stays its balance), and
 * removes x402 payment rows older than it, in transactions of `batchSize`
 * rows with a pause between them, off the request path. Daily totals are
 * kept (migration 0012's triggers leave them alone). Two removals of their
 * own run with it, with usage retention on or off: kept online evaluation
 * samples past their `delete_after`, and the OAuth sweep (expired codes and
 * tokens, oauth/oauth-sweep.ts), whose failure is reported, never the
 * run's.
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
 * whole (`drop table`, which locks `usage_records` for a moment) instead
 * of deleted row by row; the month at the cutoff's edge and the default
 * partition still go by batched deletes. Each run (and the start of the
 * background job) also makes the partitions of the current month and the
 * next two. What differs by dialect is the store's {@link RetentionDialect}
 * (sqlite/sqlite-retention.ts, postgres/postgres-retention.ts); the steps
 * are retention-ledger.ts, retention-archive.ts and retention-removal.ts.
 */
export class UsageRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionReport> | undefined;
  /** The partitions made when the job starts. */
  private starting: Promise<unknown> | undefined;
  private readonly stopping = new AbortController();
  /** What the store's dialect does its own way, chosen once. */
  private readonly dialect: RetentionDialect;

  constructor(
    private readonly store: Pick<
      Store,
      "database" | "dialect" | "probe" | "timeoutMs" | "location"
    >,
    readonly settings: RetentionSettings,
    private readonly logger?: Logger,
  ) {
    this.dialect = retentionDialectOf(store.dialect);
  }

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
      partitions: (await this.dialect.droppablePartitions(database, cutoff)).map(
        (partition) => partition.name,
      ),
    };
  }

  /**
   * Runs retention once (the background job, or `persona-admin storage
   * retention`). Returns with `skipped` when a run of this process is under
   * way, (PostgreSQL) when another instance holds the work, or when off —
   * then after the removals that run even so (kept samples, the OAuth
   * sweep). The OAuth sweep's failure is in the report, never thrown.
   *
   * @throws {RetentionPreflightError} when the preflight finds a problem
   *   (nothing was changed)
   * @throws the store's or the file system's error: from the archive,
   *   before any row changed; from the database steps, what committed
   *   stays consistent (the next run goes on from there)
   */
  run(now: Date = new Date()): Promise<RetentionReport> {
    const { days } = this.settings;
    const cutoff = days === null ? null : retentionCutoff(days, now);
    if (this.running !== undefined) {
      return Promise.resolve({ ...emptyReport(cutoff), skipped: days === null ? "off" : "busy" });
    }
    const run =
      cutoff === null
        ? this.upkeepWhileOff(now)
        : (async (): Promise<RetentionReport> => {
            // Checked before the lock's connection is asked for: an unreachable database is named too.
            const problems = await this.preflight({ create: true });
            if (problems.length > 0) throw new RetentionPreflightError(problems);
            const report = await this.dialect.exclusively(this.store.database, (database) =>
              this.work(database, cutoff, now),
            );
            return report ?? { ...emptyReport(cutoff), skipped: "busy" };
          })();
    // Tracked either way, so that stop() waits for it.
    this.running = run;
    return run.finally(() => {
      this.running = undefined;
    });
  }

  /**
   * A run with usage retention off: kept sample content and spent OAuth
   * rows have their own retention, removed even so.
   */
  private async upkeepWhileOff(now: Date): Promise<RetentionReport> {
    const report: RetentionReport = { ...emptyReport(null), skipped: "off" };
    const removed = await this.removeSamples(this.store.database, now);
    if (removed > 0) report.onlineSamplesRemoved = removed;
    await this.sweepOAuth(this.store.database, now, report);
    return report;
  }

  /** One run's steps, after its preflight, on a connection that holds the retention lock. */
  private async work(database: Database, cutoff: string, now: Date): Promise<RetentionReport> {
    const run: RetentionRun = {
      database,
      cutoff,
      batchSize: this.settings.batchSize,
      report: emptyReport(cutoff),
      months: new Set(),
      stopped: () => this.stopped,
      pause: () => this.pause(),
    };
    const { report } = run;
    report.partitionsCreated = await this.dialect.makePartitions(database, now);
    // The file system's part first: a full disk fails the run before any row changed.
    if (this.settings.archiveDir !== undefined) {
      await archiveRemovable(run, this.settings.archiveDir);
    }
    if (this.stopped) return report;
    await recordCutoff(database, cutoff);
    await rollUpLedger(run);
    await this.dialect.dropPartitions(run);
    await removeUsage(run);
    report.carriedForwardMonths = run.months.size;
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
    const samples = await this.removeSamples(database, now);
    if (samples > 0) report.onlineSamplesRemoved = samples;
    await this.sweepOAuth(database, now, report);
    report.reclaimedBytes = await this.dialect.reclaim(run);
    return report;
  }

  /** Removes kept online evaluation samples past their own retention (`delete_after`). */
  private removeSamples(database: Database, now: Date): Promise<number> {
    return removeExpiredSamples(database, now.toISOString(), this.settings.batchSize, async () => {
      await this.pause();
      return !this.stopped;
    });
  }

  /**
   * The OAuth sweep's step: its counts go into `report`; a failure is
   * logged and reported (`oauthSweepFailed`), never thrown, so the rest of
   * the run goes on.
   */
  private async sweepOAuth(database: Database, now: Date, report: RetentionReport): Promise<void> {
    const swept = emptyOAuthSweep();
    try {
      await sweepExpiredOAuth(
        database,
        {
          now,
          batchSize: this.settings.batchSize,
          between: async () => {
            await this.pause();
            return !this.stopped;
          },
        },
        swept,
      );
      if (swept.unfinished) report.oauthSweepUnfinished = true;
    } catch (error) {
      // The store's own words too: its failure kinds are worded for the request path.
      report.oauthSweepFailed =
        error instanceof StorageUnavailableError
          ? `${error.message}: ${error.detail}`
          : error instanceof Error
            ? error.message
            : String(error);
      if (!this.stopped) {
        this.logger?.error(
          { err: error },
          "sweeping expired OAuth codes and tokens failed; the rest of the retention run went on",
        );
      }
    }
    if (swept.codesRemoved > 0) report.oauthCodesRemoved = swept.codesRemoved;
    if (swept.tokensRemoved > 0) report.oauthTokensRemoved = swept.tokensRemoved;
    report.batches += swept.batches;
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
   * @returns the partitions made (none on SQLite)
   */
  async ensurePartitions(now: Date = new Date()): Promise<string[]> {
    return (
      (await this.dialect.exclusively(this.store.database, (database) =>
        this.dialect.makePartitions(database, now),
      )) ?? []
    );
  }

  /**
   * `persona-admin storage vacuum`: sets the store up so runs give freed
   * space back (SQLite: rebuilds the file with `auto_vacuum =
   * INCREMENTAL`, taking the write lock while it runs).
   *
   * @returns what was done, or why the store has nothing to do (PostgreSQL)
   */
  setUpReclaim(): Promise<ReclaimSetup> {
    return this.dialect.setUpReclaim(this.store.location);
  }

  /**
   * Starts the background job: a first run a minute after start, then every
   * `intervalMs`. On PostgreSQL the partitions ahead are made at once. With
   * retention off the job still runs every `intervalMs`: it makes the
   * partitions (PostgreSQL), removes expired online evaluation samples and
   * sweeps expired OAuth codes and tokens.
   */
  start(firstRunMs = 60_000): void {
    if (this.timer !== undefined) return;
    const partitionsMade = (error: unknown) => {
      if (!this.stopping.signal.aborted) {
        this.logger?.error({ err: error }, "making usage partitions failed; tried again later");
      }
      return [];
    };
    this.starting = this.ensurePartitions().catch(partitionsMade);
    const tick = () => {
      const work = (this.starting ?? Promise.resolve()).then(() =>
        this.settings.days === null ? this.ensurePartitions().then(() => this.run()) : this.run(),
      );
      work
        .then((report) => {
          if (
            report.usageRowsRemoved > 0 ||
            report.ledgerEntriesRolledUp > 0 ||
            report.paymentRowsRemoved > 0 ||
            report.onlineSamplesRemoved !== undefined ||
            report.oauthCodesRemoved !== undefined ||
            report.oauthTokensRemoved !== undefined
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
}
