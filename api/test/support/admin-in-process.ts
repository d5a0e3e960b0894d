import { CommanderError } from "commander";
import { createAdminProgram } from "../../src/admin/admin-program.js";
import type { Services } from "../../src/services.js";

/** What one in-process `persona-admin` command gave: its exit status and its output. */
export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Progress lines, in order (a terminal would show each over the last; clearing ones left out). */
  progress: string[];
}

/**
 * Runs one `persona-admin` command in this process on `services` (no child
 * process, no environment read), as `persona-admin <args…>` would with
 * standard error a terminal (progress lines are kept): a
 * {@link CommanderError} becomes its exit code and message; anything else
 * is thrown.
 */
export async function runAdmin(services: Services, ...args: string[]): Promise<AdminRun> {
  const out: string[] = [];
  const error: string[] = [];
  const progress: string[] = [];
  const program = createAdminProgram(services, {
    out: (text) => out.push(text),
    error: (text) => error.push(text),
    progress: (text) => {
      if (text !== "") progress.push(text);
    },
  });
  let code = 0;
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (thrown) {
    if (!(thrown instanceof CommanderError)) throw thrown;
    code = thrown.exitCode;
    error.push(thrown.message);
  }
  return { code, stdout: out.join("\n"), stderr: error.join("\n"), progress };
}
