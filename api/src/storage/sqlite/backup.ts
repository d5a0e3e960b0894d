/**
 * Online backup of the database (`persona-admin backup FILE`): written
 * beside the destination, then renamed into place, owner-only.
 */
import fs from "node:fs";
import { answerError, post } from "./worker-answers.js";
import { connection } from "./worker-connection.js";

/** Starts a backup to `destination`; answers request `id` with its size in bytes when done. */
export function startBackup(id: number, destination: string): void {
  const temporary = `${destination}.partial-${process.pid}`;
  connection
    .backup(temporary)
    .then(() => {
      fs.chmodSync(temporary, 0o600);
      fs.renameSync(temporary, destination);
      post({ id, ok: true, value: { bytes: fs.statSync(destination).size } });
    })
    .catch((error: unknown) => {
      fs.rmSync(temporary, { force: true });
      answerError(id, error);
    });
}
