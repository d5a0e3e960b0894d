import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import {
  completionResponseSchema,
  generateResponseSchema,
  personifyResponseSchema,
} from "@persona-reply/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnvironment } from "../../test-support/isolated-process.js";
import { type SpawnedService, spawnService } from "../../test-support/spawn-service.js";
import { readEnvFile } from "../src/storage/env-file.js";
import { scratchClone } from "./support/scratch-clone.js";

/** The service's "listening" line: its URL. */
const LISTENING_URL = /"url":"(http:\/\/[^"]+)"[^\n]*Persona Reply is listening/u;

let directory: string;
let service: SpawnedService;
beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "persona-start-"));
  fs.writeFileSync(path.join(directory, ".env"), "# my settings\nOTHER=kept\n");
  service = await spawnService(directory);
});
afterAll(() => {
  if (service.child.exitCode === null) service.child.kill("SIGKILL");
  fs.rmSync(directory, { recursive: true, force: true });
});

describe("npm start on a fresh store (the main job)", () => {
  it("seeds the demo and writes SERVICE_* to .env with mode 0600, keeping other lines", () => {
    const file = path.join(directory, ".env");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const values = readEnvFile(file);
    expect(values.OTHER).toBe("kept");
    expect(values.SERVICE_API_KEY).toMatch(/^prk_/u);
    expect(values.SERVICE_PERSONA_ID).toMatch(/^[0-9a-f-]{36}$/u);
    expect(values.SERVICE_BASE_URL).toBe(service.url);
    const database = path.join(fs.realpathSync(directory), "data", "persona-reply.sqlite");
    expect(fs.existsSync(database)).toBe(true);
    // The database the key was written for, so a lost file is told from a new one.
    expect(values.SERVICE_DATABASE).toBe(database);
  });

  it("never prints the key, and logs JSON lines beside plain lines for the operator", () => {
    const key = readEnvFile(path.join(directory, ".env")).SERVICE_API_KEY ?? "";
    expect(key.length).toBeGreaterThan(20);
    expect(service.output()).not.toContain(key);
    expect(service.output()).not.toContain(key.slice(4, 30));
    const lines = service.output().trim().split("\n");
    // Standard error carries the operator's plain lines (the demo address that may sign in).
    const plain = lines.filter((line) => line.startsWith("persona-reply: "));
    expect(plain).toEqual([
      expect.stringMatching(
        /^persona-reply: playground sign-in for the demo account: you@persona\.localhost at http:\/\/127\.0\.0\.1:\d+\/sign-in;/u,
      ),
    ]);
    for (const line of lines.filter((entry) => !plain.includes(entry)))
      expect(() => JSON.parse(line)).not.toThrow();
  });

  it("answers each endpoint with the demo key from .env", async () => {
    const env = readEnvFile(path.join(directory, ".env"));
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${env.SERVICE_API_KEY}`,
    };
    const post = (endpoint: string, body: unknown) =>
      fetch(`${env.SERVICE_BASE_URL}/api/v1/${endpoint}`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
    const generated = await post("generate", {
      personaId: env.SERVICE_PERSONA_ID,
      messages: [{ role: "user", content: "Hello!" }],
    });
    expect(generated.status).toBe(200);
    generateResponseSchema.parse(await generated.json());
    const personified = await post("personify", {
      personaId: env.SERVICE_PERSONA_ID,
      raw: "We meet at noon.",
    });
    expect(personified.status).toBe(200);
    personifyResponseSchema.parse(await personified.json());
    const completed = await post("completions", { model: env.SERVICE_PERSONA_ID, prompt: "Hi" });
    expect(completed.status).toBe(200);
    completionResponseSchema.parse(await completed.json());
    // Requests were logged (lines reach standard output within 200 ms), with the key redacted.
    const until = Date.now() + 2_000;
    while (!/"statusCode":200/u.test(service.output()) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(service.output()).toMatch(/"statusCode":200/u);
    expect(service.output()).not.toContain(env.SERVICE_API_KEY ?? "unset");
  });

  it("shuts down gracefully on SIGTERM, and a second start keeps the same key", async () => {
    const file = path.join(directory, ".env");
    const before = readEnvFile(file);
    expect(await service.stop()).toBe(0);
    // A file written before it named its database learns the name at the next start.
    fs.writeFileSync(
      file,
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => !line.startsWith("SERVICE_DATABASE="))
        .join("\n"),
    );
    service = await spawnService(directory);
    const env = readEnvFile(file);
    expect(env.SERVICE_API_KEY).toBe(before.SERVICE_API_KEY);
    expect(env.SERVICE_BASE_URL).toBe(service.url);
    expect(env.SERVICE_DATABASE).toBe(before.SERVICE_DATABASE);
    expect(await service.stop()).toBe(0);
  });

  it("refuses to start with a bad configuration value and names the variable", async () => {
    await expect(spawnService(directory, { PERSONA_BODY_LIMIT_BYTES: "lots" })).rejects.toThrow(
      /PERSONA_BODY_LIMIT_BYTES/u,
    );
  });
});

/** The state letter of a process in /proc (`Z` for one that has exited but is not reaped), or undefined once gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

/** Every process descended from `pid`, read from /proc (Linux). */
function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // It exited while the list was read.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Whether something accepts connections at a URL's port. */
function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe.skipIf(process.platform !== "linux")("npm start under a process manager", () => {
  it("SIGTERM to the npm process stops the script, the service and the example app, frees their ports, exits 0", async () => {
    const clone = scratchClone();
    const npm = spawn("npm", ["start"], {
      cwd: clone,
      env: isolatedEnvironment({
        PERSONA_PORT: "0",
        EXAMPLE_PORT: "0",
        npm_config_update_notifier: "false",
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let family: number[] = [];
    const exited = new Promise<number | null>((resolve) => npm.once("exit", resolve));
    try {
      const exampleUrl = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 60_000);
        const onData = (data: Buffer) => {
          output += data.toString("utf8");
          const match = /"msg":"example app is listening","url":"(http:\/\/[^"]+)"/u.exec(output);
          if (match?.[1] === undefined) return;
          clearTimeout(timer);
          resolve(match[1]);
        };
        npm.stdout.on("data", onData);
        npm.stderr.on("data", onData);
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`npm start exited with ${code}:\n${output}`));
        });
      });
      const serviceUrl = LISTENING_URL.exec(output)?.[1] ?? "";
      expect(await accepts(serviceUrl)).toBe(true);
      expect(await accepts(exampleUrl)).toBe(true);
      // The script, the service and the example app (and a shell, if one is left between).
      family = descendantsOf(npm.pid ?? 0);
      expect(family.length, output).toBeGreaterThanOrEqual(3);

      npm.kill("SIGTERM");
      expect(await exited, output).toBe(0);
      const left = family.filter((pid) => ![undefined, "Z"].includes(processState(pid)));
      expect(left, output).toEqual([]);
      expect(await accepts(serviceUrl)).toBe(false);
      expect(await accepts(exampleUrl)).toBe(false);
      // Both stopped gracefully: the service drained and said so.
      expect(output).toMatch(/"signal":"SIGTERM"[^\n]*"msg":"shutting down"/u);
    } finally {
      if (npm.exitCode === null) npm.kill("SIGKILL");
      for (const pid of family.filter((member) => processState(member) !== undefined)) {
        process.kill(pid, "SIGKILL");
      }
    }
  }, 90_000);
});
