import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built `persona` executable (the bundled bin of the package). */
export const PERSONA_BIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

/** What a run of `persona` printed and how it ended. */
export interface PersonaRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `persona` as its own process with exactly the given
 * environment (nothing inherited but PATH), feeding `input` to standard input.
 */
export function runPersona(
  args: string[],
  env: Record<string, string>,
  input = "",
): Promise<PersonaRun> {
  const child = spawn(process.execPath, [PERSONA_BIN, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
