import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isolatedEnvironment } from "./isolated-process.js";

// Test support shared by every package's tests: the service as a real
// process started from its built files (tests run after `npm run build`).

/** The built service entry point. */
export const MAIN_SCRIPT = fileURLToPath(new URL("../api/dist/main.js", import.meta.url));
/** The built operator CLI. */
export const ADMIN_SCRIPT = fileURLToPath(new URL("../api/dist/admin/cli.js", import.meta.url));
/** The example persona file that ships with the service. */
export const EXAMPLE_PERSONA_FILE = fileURLToPath(
  new URL("../api/personas/example-persona.json", import.meta.url),
);

/** A service process started from the built files, with everything it printed. */
export interface SpawnedService {
  child: ChildProcess;
  url: string;
  output: () => string;
  /**
   * Sends SIGTERM (or the given signal, e.g. SIGKILL to simulate a crash)
   * and resolves with the exit code.
   */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `node api/dist/main.js` in `cwd` with PERSONA_PORT=0 and waits for
 * its "listening" log line. It inherits no `PERSONA_*` or `SERVICE_*`
 * variable of the test's environment (isolated-process.ts): only `environment`.
 */
export function spawnService(
  cwd: string,
  environment: Record<string, string> = {},
): Promise<SpawnedService> {
  const child = spawn(process.execPath, [MAIN_SCRIPT], {
    cwd,
    env: isolatedEnvironment({ PERSONA_PORT: "0", ...environment }),
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
        stop: (signal: NodeJS.Signals = "SIGTERM") =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) {
              done(child.exitCode);
              return;
            }
            child.once("exit", (code) => done(code));
            child.kill(signal);
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

/** Reads `NAME=value` lines of an env file written by the service. */
function readEnv(file: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const index = line.indexOf("=");
    if (index > 0 && !line.startsWith("#")) values[line.slice(0, index)] = line.slice(index + 1);
  }
  return values;
}

/** A service process on a fresh store, seeded with the demo account, persona and key. */
export interface ApiFixture {
  /** Site origin, e.g. `http://127.0.0.1:41234` (no `/api/v1`). */
  baseUrl: string;
  /** The demo key (made fresh by the seed; never a committed fixture). */
  apiKey: string;
  /** The demo persona, which has /personify access. */
  personaId: string;
  /** The demo account's ID. */
  accountId: string;
  /** Folder holding the store, `.env` and anything a test writes. */
  directory: string;
  /** Process ID of the service (e.g. to read its memory from `/proc/PID/status`). */
  pid: number;
  /** Runs `persona-admin` on the same store; throws on a non-zero exit. Returns stdout trimmed. */
  admin(...args: string[]): string;
  /** Everything the service printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the built service (`node api/dist/main.js`) on a free loopback port
 * in a temporary folder and returns what the first-run seed wrote to `.env`.
 *
 * @param environment - extra `PERSONA_*` variables for the service
 */
export async function startApi(environment: Record<string, string> = {}): Promise<ApiFixture> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-fixture-"));
  const spawned = await spawnService(directory, {
    // Tests block their event loop in `admin(…)` (spawnSync) for a second or
    // more; a keep-alive connection the service closed meanwhile would then be
    // reused by the test's next request and reset. Idle connections stay open
    // for a minute here instead.
    PERSONA_KEEP_ALIVE_TIMEOUT_MS: "60000",
    ...environment,
  });
  const env = readEnv(path.join(directory, ".env"));
  const databaseEnvironment = isolatedEnvironment({
    PERSONA_DATABASE_URL: path.join(directory, "data", "persona-reply.sqlite"),
    ...environment,
  });
  const admin = (...args: string[]) => {
    const result = spawnSync(process.execPath, [ADMIN_SCRIPT, ...args], {
      cwd: directory,
      env: databaseEnvironment,
      encoding: "utf8",
    });
    if (result.status !== 0) {
      throw new Error(`persona-admin ${args[0]} ${args[1]} failed: ${result.stderr}`);
    }
    return result.stdout.trim();
  };
  const personaId = env.SERVICE_PERSONA_ID ?? "";
  const persona = JSON.parse(admin("persona", "show", personaId)) as { accountId: string };
  return {
    baseUrl: spawned.url,
    apiKey: env.SERVICE_API_KEY ?? "",
    personaId,
    accountId: persona.accountId,
    directory,
    pid: spawned.child.pid ?? 0,
    admin,
    output: spawned.output,
    async stop() {
      await spawned.stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
