import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Services } from "../src/services.js";
import type { Database } from "../src/storage/store.js";
import {
  ensureUsagePartitions,
  monthOf,
  monthsBetween,
  usagePartitions,
} from "../src/usage/usage-partitions.js";
import { UsageRetention } from "../src/usage/usage-retention.js";
import { runAdmin } from "./support/admin-in-process.js";
import { createTestDatabase, describeEachDialect } from "./support/test-databases.js";
import { closeStore, createCustomer, openStore, type StoreCustomer } from "./support/test-store.js";
import { bigintsAsNumbers, readDailyTotals, writeChargedUsage } from "./support/usage-ledger.js";

// A retention run checks everything it needs before it changes anything:
// with an archive folder it cannot write (a path under a file, a file),
// `persona-admin storage retention` exits 1 naming the variable, the path
// and what is wrong, and the ledger, usage rows, daily totals, payment rows
// (and, on PostgreSQL, the partitions) are as they were; `--dry-run` runs
// the same checks and exits 1 too. Dates are relative to today: the CLI
// runs at the real time.

const DAY = 86_400_000;
const RETENTION_DAYS = 30;
const TODAY = Date.UTC(
  new Date().getUTCFullYear(),
  new Date().getUTCMonth(),
  new Date().getUTCDate(),
);

function daysAgo(days: number, hour = 12): string {
  return new Date(TODAY - days * DAY + hour * 3_600_000).toISOString();
}

/** An x402 payment row as the gate writes it (its ID the hash of payer and nonce). */
async function payment(database: Database, personaId: string, createdAt: string): Promise<void> {
  await database
    .insertInto("x402_payments")
    .values({
      id: randomBytes(32).toString("hex"),
      persona_id: personaId,
      amount_micros: 10_000,
      status: "settled",
      payer: "0x00000000000000000000000000000000000000aA",
      transaction_reference: `0x${randomBytes(32).toString("hex")}`,
      created_at: createdAt,
    })
    .execute();
}

await describeEachDialect("a retention run that cannot archive changes nothing", (database) => {
  let services: Services;
  let customer: StoreCustomer;
  let scratch: string;
  let blocker: string;
  let underFile: string;

  /** Everything a run could change, read whole. */
  async function snapshot() {
    const db = services.database;
    return {
      ledger: bigintsAsNumbers(
        await db.selectFrom("balance_entries").selectAll().orderBy("id").execute(),
      ),
      usage: bigintsAsNumbers(
        await db.selectFrom("usage_records").selectAll().orderBy("id").execute(),
      ),
      totals: await readDailyTotals(db),
      payments: bigintsAsNumbers(
        await db.selectFrom("x402_payments").selectAll().orderBy("id").execute(),
      ),
      balances: bigintsAsNumbers(
        await db.selectFrom("accounts").select(["id", "balance_micros"]).orderBy("id").execute(),
      ),
      cutoff: await db.selectFrom("retention_cutoff").selectAll().execute(),
      partitions:
        database.dialect === "postgres"
          ? (await usagePartitions(db)).map((partition) => partition.name)
          : [],
    };
  }

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "persona-preflight-"));
    blocker = path.join(scratch, "not-a-folder");
    fs.writeFileSync(blocker, "a file where a folder is expected\n");
    underFile = path.join(blocker, "archive");
    services = await openStore(database.url, {
      PERSONA_USAGE_RETENTION_DAYS: String(RETENTION_DAYS),
      PERSONA_USAGE_ARCHIVE_DIR: underFile,
      PERSONA_RETENTION_BATCH_SIZE: "3",
      PERSONA_RETENTION_PAUSE_MS: "0",
    });
    customer = await createCustomer(services, { balanceMicros: 50_000_000 });
    const db = services.database;
    if (database.dialect === "postgres") {
      // Whole months before the cutoff: a run would drop them.
      await ensureUsagePartitions(db, monthsBetween(monthOf(daysAgo(95)), monthOf(daysAgo(0))));
    }
    // The top-up long ago: a run would roll it into a carried-forward entry.
    await db
      .updateTable("balance_entries")
      .set({ created_at: daysAgo(95) })
      .where("account_id", "=", customer.accountId)
      .execute();
    for (let day = 1; day <= 90; day += 4) {
      await writeChargedUsage(
        db,
        { accountId: customer.accountId, personaId: customer.persona.id, costMicros: 1_000 + day },
        daysAgo(day),
      );
      await payment(db, customer.persona.id, daysAgo(day, 9));
    }
  });
  afterAll(async () => {
    await closeStore(services);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("storage retention exits 1 naming the variable, the path and the file in the way", async () => {
    const before = await snapshot();
    const { code, stdout, stderr } = await runAdmin(services, "storage", "retention").catch(
      // Not the CLI's error format (a raw error escaped the command): its text, to compare.
      (error: unknown) => ({ code: -1, stdout: "", stderr: String(error) }),
    );
    expect(await snapshot()).toEqual(before);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain(`PERSONA_USAGE_ARCHIVE_DIR=${underFile}`);
    expect(stderr).toContain(`${blocker} is a file`);
    expect(stderr).toMatch(/nothing was changed/u);
    expect(stderr).not.toMatch(/\n\s+at /u);
    expect(fs.readFileSync(blocker, "utf8")).toBe("a file where a folder is expected\n");
  });

  it("the dry run makes the same checks and exits 1 naming the problem", async () => {
    const before = await snapshot();
    const { code, stdout, stderr } = await runAdmin(services, "storage", "retention", "--dry-run");
    expect(code).toBe(1);
    expect(stderr).toContain(`PERSONA_USAGE_ARCHIVE_DIR=${underFile}`);
    expect(stderr).toContain(`${blocker} is a file`);
    // What the run would remove is still counted.
    expect(JSON.parse(stdout)).toMatchObject({ days: RETENTION_DAYS, archiveDir: underFile });
    expect(JSON.parse(stdout).usageRows).toBeGreaterThan(0);
    expect(await snapshot()).toEqual(before);
  });

  it("an archive path that is a file is refused the same way, by the job too", async () => {
    const before = await snapshot();
    const job = new UsageRetention(services.store, {
      ...services.retention.settings,
      archiveDir: blocker,
    });
    await expect(job.run()).rejects.toThrow(
      `PERSONA_USAGE_ARCHIVE_DIR=${blocker}: is a file, not a folder`,
    );
    const dry = await job.preflight({ create: false });
    expect(dry).toEqual([`PERSONA_USAGE_ARCHIVE_DIR=${blocker}: is a file, not a folder`]);
    expect(await snapshot()).toEqual(before);
  });

  it("with a folder it can write, the same run archives then removes, payment rows included", async () => {
    const archiveDir = path.join(scratch, "made", "by", "the-run");
    const dry = new UsageRetention(services.store, { ...services.retention.settings, archiveDir });
    // The dry run's checks leave nothing behind: the folder is made by the real run.
    expect(await dry.preflight({ create: false })).toEqual([]);
    expect(fs.existsSync(path.join(scratch, "made"))).toBe(false);
    const preview = await dry.preview();
    expect(preview.paymentRows).toBe(15);
    const report = await dry.run();
    expect(report.usageRowsRemoved).toBe(15);
    expect(report.paymentRowsRemoved).toBe(15);
    expect(report.archiveFiles.reduce((sum, file) => sum + file.rows, 0)).toBe(15);
    expect(fs.readdirSync(archiveDir).filter((name) => name.startsWith("."))).toEqual([]);
    const left = await services.database.selectFrom("x402_payments").select("created_at").execute();
    expect(left).toHaveLength(8);
    const balance = await services.billing.balances.balanceOf(customer.accountId);
    expect(await services.billing.balances.ledgerSum(customer.accountId)).toBe(
      balance?.balanceMicros,
    );
  });
});

await describeEachDialect("retention's preflight: the database", (database) => {
  let services: Services;
  beforeAll(async () => {
    services = await openStore(database.url, {
      PERSONA_USAGE_RETENTION_DAYS: String(RETENTION_DAYS),
    });
  });
  afterAll(async () => {
    await closeStore(services);
  });

  it("names the database it cannot reach, and the dry run with retention off says it is off", async () => {
    // A database lost while the command runs: dropped (PostgreSQL), its file deleted (SQLite).
    const lost = await createTestDatabase(database.dialect);
    const lostServices = await openStore(lost.url, {
      PERSONA_USAGE_RETENTION_DAYS: String(RETENTION_DAYS),
    });
    try {
      await lost.drop();
      // SQLite notices a deleted file at its next maintenance round (every 50 ms).
      let problems: string[] = [];
      for (let tries = 0; tries < 100 && problems.length === 0; tries += 1) {
        problems = await lostServices.retention.preflight({ create: false });
        if (problems.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^the database \(PERSONA_DATABASE_URL=.+\) cannot be written: /u);
      expect(problems[0]).toContain(lostServices.store.location);
      const run = await runAdmin(lostServices, "storage", "retention");
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^retention did not run, nothing was changed: the database \(/u);
      const dry = await runAdmin(lostServices, "storage", "retention", "--dry-run");
      expect(dry.code).toBe(1);
      expect(dry.stderr).toMatch(/^the retention run would fail: the database \(/u);
    } finally {
      await closeStore(lostServices).catch(() => undefined);
    }

    const off = await openStore(database.url, { PERSONA_USAGE_RETENTION_DAYS: "off" });
    try {
      const dry = await runAdmin(off, "storage", "retention", "--dry-run");
      expect(dry.code).toBe(1);
      expect(dry.stderr).toMatch(/retention is off: set PERSONA_USAGE_RETENTION_DAYS/u);
    } finally {
      await closeStore(off);
    }
    expect(await services.retention.preflight({ create: false })).toEqual([]);
    expect((await runAdmin(services, "storage", "retention", "--dry-run")).code).toBe(0);
  });
});
