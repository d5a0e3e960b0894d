import path from "node:path";
import { type Command, CommanderError } from "commander";
import type { Store } from "../storage/store.js";

/**
 * `persona-admin backup FILE`: copies the
 * SQLite database with SQLite's online backup API while the service keeps
 * serving — a consistent snapshot, written aside and renamed into place,
 * mode 0600. PostgreSQL is backed up with `pg_dump` and point-in-time
 * recovery instead (docs/OPERATIONS.md "Backups").
 *
 * @param storeOf - the store, read when the command runs (the CLI opens it only then)
 */
export function addBackupCommand(
  program: Command,
  storeOf: () => Pick<Store, "backup" | "dialect">,
  print: (value: unknown) => void,
): void {
  program
    .command("backup")
    .argument("<file>", "where to write the copy (replaced atomically when it exists)")
    .description("copy the SQLite database while the service runs (online backup, mode 0600)")
    .action(async (file: string) => {
      const store = storeOf();
      if (store.backup === undefined) {
        throw new CommanderError(
          1,
          "backup.unsupported",
          `backups of a ${store.dialect} database are made with its own tools (pg_dump, point-in-time recovery): see docs/OPERATIONS.md "Backups"`,
        );
      }
      const destination = path.resolve(file);
      const { bytes } = await store.backup(destination);
      print({ file: destination, bytes });
    });
}
