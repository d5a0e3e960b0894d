import { type Command, CommanderError } from "commander";
import { DEFAULT_MIGRATION_TABLE, sql } from "kysely";
import type { Store } from "../storage/store.js";

/** What `persona-admin migrate` prints: where the schema stands after it ran. */
export interface MigrateResult {
  /** `sqlite` or `postgres`. */
  dialect: Store["dialect"];
  /** The store's location, safe to print (the URL without its password). */
  database: string;
  /** Migrations the database has run, in all. */
  applied: number;
  /** The name of the latest one (`0029_applications`). */
  latest: string;
}

/**
 * `persona-admin migrate`: the one-shot migration step of a deployment
 * (a compose service, a Kubernetes Job, a container run before the
 * instances). The database is migrated when the CLI opens it — every
 * command does so, and so does the service at start-up — under the
 * migration runner's lock (an advisory lock on PostgreSQL), so several
 * instances and this command starting together are safe; this command
 * does nothing else and then says where the schema stands.
 *
 * @param storeOf - the store, read when the command runs (the CLI opens it only then)
 * @throws {CommanderError} `migrate.empty` when the database shows no migration after opening
 */
export function addMigrateCommand(
  program: Command,
  storeOf: () => Pick<Store, "database" | "dialect" | "location">,
  print: (value: unknown) => void,
): void {
  program
    .command("migrate")
    .option("--json", "JSON instead of text")
    .description(
      "apply pending migrations (a deployment's one-shot step) and say where the schema stands",
    )
    .action(async (options: { json?: boolean }) => {
      const store = storeOf();
      const { rows } = await sql<{ name: string }>`select name from ${sql.table(
        DEFAULT_MIGRATION_TABLE,
      )} order by name`.execute(store.database);
      const latest = rows.at(-1)?.name;
      if (latest === undefined) {
        throw new CommanderError(
          1,
          "migrate.empty",
          "the database shows no migration after opening",
        );
      }
      const result: MigrateResult = {
        dialect: store.dialect,
        database: store.location,
        applied: rows.length,
        latest,
      };
      print(
        options.json === true
          ? result
          : `${result.dialect} database ${result.database}: ${result.applied} migrations applied, the latest ${result.latest}`,
      );
    });
}
