import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Tests are hermetic: a process they start (the service, persona-admin)
// reads no variable of the developer's shell about this service, and no
// `.env` or `data/` of the checkout they run in.

/** Variables of the service and its clients a developer's shell (or `npm start`) may hold. */
const SERVICE_VARIABLE = /^(?:PERSONA_|SERVICE_)/u;

/**
 * The environment for a process a test starts: the test's own
 * environment without any `PERSONA_*`, `SERVICE_*` or `PORT` variable, then
 * `environment` on top. Without an explicit `PERSONA_ENV_FILE`, the process
 * reads (and the demo seed writes) `./.env` of its working directory — give
 * it a scratch one ({@link scratchDirectory}).
 *
 * @example
 * spawnSync(process.execPath, [ADMIN_SCRIPT, "account", "list"], {
 *   cwd: scratchDirectory("persona-admin-"),
 *   env: isolatedEnvironment({ PERSONA_DATABASE_URL: file }),
 * });
 */
export function isolatedEnvironment(environment: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !SERVICE_VARIABLE.test(name) && name !== "PORT"),
  );
  return { ...inherited, ...environment };
}

/**
 * A fresh empty folder under the system's temporary folder, as a working
 * directory for a process a test starts (its `./.env`, its `./data/`).
 * Removed when the test process exits.
 *
 * @param prefix - start of the folder's name, e.g. `persona-admin-`
 */
export function scratchDirectory(prefix = "persona-scratch-"): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratchDirectories.push(directory);
  return directory;
}

const scratchDirectories: string[] = [];
process.once("exit", () => {
  for (const directory of scratchDirectories)
    fs.rmSync(directory, { recursive: true, force: true });
});
