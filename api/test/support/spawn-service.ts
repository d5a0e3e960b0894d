import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built service entry point (tests run after `npm run build`). */
export const MAIN_SCRIPT = fileURLToPath(new URL("../../dist/main.js", import.meta.url));
/** The built operator CLI. */
export const ADMIN_SCRIPT = fileURLToPath(new URL("../../dist/admin/cli.js", import.meta.url));

/** A service process started from the built files, with everything it printed. */
export interface SpawnedService {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `node api/dist/main.js` in `cwd` with PERSONA_PORT=0 and waits for
 * its "listening" log line.
 */
export function spawnService(
  cwd: string,
  environment: Record<string, string> = {},
): Promise<SpawnedService> {
  const child = spawn(process.execPath, [MAIN_SCRIPT], {
    cwd,
    env: { ...process.env, PERSONA_PORT: "0", ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 20_000);
    const onData = (data: Buffer) => {
      output += data.toString("utf8");
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*Persona Reply is listening/u.exec(output);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve({
        child,
        url: match[1],
        output: () => output,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) done(child.exitCode);
            child.once("exit", (code) => done(code));
            child.kill("SIGTERM");
          }),
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}:\n${output}`));
    });
  });
}
