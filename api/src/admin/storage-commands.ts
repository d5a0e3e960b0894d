import { type Command, CommanderError } from "commander";
import type { Services } from "../services.js";
import { RetentionPreflightError } from "../usage/retention-preflight.js";
import { type StorageStats, storageStats } from "../usage/usage-storage-stats.js";
import { textTable } from "./admin-output.js";

function statsTable(stats: StorageStats): string {
  const table = textTable(
    ["table", "rows", "bytes"],
    stats.tables.map((entry) => [
      entry.table,
      String(entry.rows),
      entry.bytes === null ? "-" : String(entry.bytes),
    ]),
    1,
  );
  const { retention } = stats;
  const partitions =
    stats.partitions === undefined
      ? []
      : [
          "",
          "usage_records partitions (PostgreSQL, by month of created_at):",
          textTable(
            ["partition", "from", "to", "rows", "bytes", "next retention"],
            stats.partitions.map((entry) => [
              entry.partition,
              entry.from ?? "-",
              entry.to ?? "-",
              String(entry.rows),
              String(entry.bytes),
              entry.dropsNext ? "drops it" : "-",
            ]),
            1,
          ),
        ];
  const lines = [
    `${stats.dialect} database: ${stats.databaseBytes} bytes`,
    ...(stats.sqlite === undefined
      ? []
      : [
          `auto_vacuum: ${stats.sqlite.autoVacuum}; free pages: ${stats.sqlite.freePages} × ${stats.sqlite.pageSize} bytes`,
        ]),
    "",
    table,
    ...partitions,
    "",
    `oldest usage row: ${stats.oldest.usageRecords ?? "-"}; oldest ledger entry: ${stats.oldest.ledgerEntries ?? "-"}`,
    retention.cutoff === null
      ? "retention: off (PERSONA_USAGE_RETENTION_DAYS)"
      : `next retention run (${retention.days} days, before ${retention.cutoff}): removes ${retention.usageRows} usage rows${retention.partitions.length === 0 ? "" : ` (dropping partitions ${retention.partitions.join(", ")})`}, rolls up ${retention.ledgerEntries} ledger entries, removes ${retention.paymentRows} x402 payment rows${retention.archiveDir === null ? "" : `, archived to ${retention.archiveDir}`}`,
  ];
  return lines.join("\n");
}

/**
 * `persona-admin storage stats|retention|vacuum`: rows and bytes per table and what retention would remove;
 * one retention run now; and, on SQLite, switching an existing file to
 * `auto_vacuum = INCREMENTAL` (a full VACUUM) so retention shrinks it.
 */
export function addStorageCommands(
  program: Command,
  services: Pick<Services, "store" | "retention">,
  print: (value: unknown) => void,
): void {
  // `services` is opened only when a command runs (cli.ts): read it inside the actions.
  const storage = program.command("storage").description("database size and usage retention");
  storage
    .command("stats")
    .option("--json", "JSON instead of text")
    .description(
      "rows and bytes per table, oldest usage row and ledger entry, what the next retention run removes",
    )
    .action(async (options: { json?: boolean }) => {
      const stats = await storageStats(services.store, services.retention);
      print(options.json === true ? stats : statsTable(stats));
    });
  storage
    .command("retention")
    .option(
      "--dry-run",
      "only count what would be removed, and check what the run needs (exits 1 when it would fail)",
    )
    .description(
      "run usage retention once now (PERSONA_USAGE_RETENTION_DAYS, PERSONA_USAGE_ARCHIVE_DIR); it checks the database and the archive folder first and changes nothing when either fails",
    )
    .action(async (options: { dryRun?: boolean }) => {
      const { retention } = services;
      const off = new CommanderError(
        1,
        "retention.off",
        "retention is off: set PERSONA_USAGE_RETENTION_DAYS to a number of days",
      );
      if (options.dryRun === true) {
        // The real run's checks, minus making the archive folder: what the run would fail on.
        const problems = await retention.preflight({ create: false });
        const failing = new CommanderError(
          1,
          "retention.preflight",
          `the retention run would fail: ${problems.join("; ")}`,
        );
        let preview: Awaited<ReturnType<typeof retention.preview>>;
        try {
          preview = await retention.preview();
        } catch (error) {
          // Counting needs the database too: when it is what fails, say so in the checks' words.
          if (problems.length > 0) throw failing;
          throw error;
        }
        print({ ...preview, problems });
        if (retention.settings.days === null) throw off;
        if (problems.length > 0) throw failing;
        return;
      }
      let report: Awaited<ReturnType<typeof retention.run>>;
      try {
        report = await retention.run();
      } catch (error) {
        if (!(error instanceof RetentionPreflightError)) throw error;
        throw new CommanderError(1, "retention.preflight", error.message);
      }
      if (report.skipped === "off") throw off;
      print(report);
    });
  storage
    .command("vacuum")
    .description(
      "SQLite: rebuild the file with auto_vacuum = INCREMENTAL so retention shrinks it (once, for files made before; takes the write lock while it runs)",
    )
    .action(async () => {
      const done = await services.retention.setUpReclaim();
      if ("unsupported" in done) {
        throw new CommanderError(1, "vacuum.unsupported", done.unsupported);
      }
      print(done);
    });
}
