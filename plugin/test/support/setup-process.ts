import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { SETUP_SCRIPT } from "./plugin-files.js";

/** A running setup script, with what it printed so far. */
export interface SetupRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The login URL it printed (it runs with `--no-browser`, so a test's browser opens it). */
  url: Promise<string>;
  /** Resolves with the exit code once the process has ended. */
  exit: Promise<number | null>;
}

/**
 * Starts the built setup script as its own process, as the setup command
 * does, always with `--no-browser` (the test drives Debian's chromium
 * itself instead of the system's browser).
 *
 * @param args - the script's arguments
 * @param env - its whole environment (nothing else is inherited but PATH)
 * @param cwd - its working folder
 */
export function startSetup(args: string[], env: Record<string, string>, cwd: string): SetupRun {
  // `--` first, or Node itself would take the script's --env-file (see src/setup/main.ts).
  const child = spawn(process.execPath, ["--", SETUP_SCRIPT, "--no-browser", ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let found: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    found = resolve;
  });
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    const match = /^ {2}(http:\/\/\S+\/api\/persona\/cli\/login\?\S+)$/mu.exec(stderr);
    if (match?.[1] !== undefined) found(match[1]);
  });
  const exit = new Promise<number | null>((resolve) => child.once("close", resolve));
  return { child, stdout: () => stdout, stderr: () => stderr, url, exit };
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
