import { type ChildProcess, spawn } from "node:child_process";

/** A running process that performs the browser login of docs/API.md §4.5, with what it printed so far. */
export interface LoginProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The login URL it printed (it runs with `--no-browser`, so a test's browser opens it). */
  url: Promise<string>;
  /** Resolves with the exit code once the process has ended. */
  exit: Promise<number | null>;
}

/** The line a login flow prints for the user to open: two spaces, then the URL. */
const LOGIN_URL_LINE = /^ {2}(http:\/\/\S+\/api\/persona\/cli\/login\?\S+)$/mu;

/**
 * Spawns `node <nodeArgs…>` (`persona login` or the plugin's setup script)
 * and captures its output and the login URL it prints on stderr.
 *
 * @param nodeArgs - Node's arguments: the script and its flags
 * @param env - the whole environment (nothing else is inherited but PATH)
 * @param cwd - working folder, the current one by default
 */
export function spawnLoginProcess(
  nodeArgs: string[],
  env: Record<string, string>,
  cwd?: string,
): LoginProcess {
  const child = spawn(process.execPath, nodeArgs, {
    env: { PATH: process.env.PATH ?? "", ...env },
    ...(cwd === undefined ? {} : { cwd }),
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
    const match = LOGIN_URL_LINE.exec(stderr);
    if (match?.[1] !== undefined) found(match[1]);
  });
  const exit = new Promise<number | null>((resolve) => child.once("close", resolve));
  return { child, stdout: () => stdout, stderr: () => stderr, url, exit };
}
