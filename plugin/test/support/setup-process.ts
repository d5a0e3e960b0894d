import fs from "node:fs";
import path from "node:path";
import { type LoginProcess, spawnLoginProcess } from "../../../test-support/login-process.js";
import { SETUP_SCRIPT } from "./plugin-files.js";

/** A running setup script, with what it printed so far. */
export type SetupRun = LoginProcess;

/**
 * Starts the bundled setup program as its own process, as the setup command
 * does, always with `--no-browser` (the test drives Debian's chromium
 * itself instead of the system's browser).
 *
 * @param args - the script's arguments
 * @param env - its whole environment (nothing else is inherited but PATH)
 * @param cwd - its working folder
 * @param script - the setup program: this checkout's plugin's by default, or a copy's
 */
export function startSetup(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  script = SETUP_SCRIPT,
): SetupRun {
  // `--` first, or Node itself would take the script's --env-file (see src/setup/main.ts).
  return spawnLoginProcess(["--", script, "--no-browser", ...args], env, cwd);
}

/** A snapshot of a folder: every file's path, mode and content, to prove nothing changed. */
export function snapshot(folder: string): Record<string, { mode: number; content: string }> {
  const result: Record<string, { mode: number; content: string }> = {};
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    result[path.relative(folder, file)] = {
      mode: fs.statSync(file).mode & 0o777,
      content: fs.readFileSync(file, "utf8"),
    };
  }
  return result;
}
